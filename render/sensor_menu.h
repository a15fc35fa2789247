/* The sensor the plots panel shows: chosen with N / shift+N (next / previous, "none"
 * included) or from a menu of every sensor (E; up/down and enter, or a click). */
#ifndef MR_RENDER_SENSOR_MENU_H
#define MR_RENDER_SENSOR_MENU_H

#include "viewer.h"

/* Plots sensor id (-1: none): the panel opens and a message names it. */
void mr_sensor_plot_choose(mr_viewer *v, int id);

/* N / shift+N: the next or previous sensor (delta +1 or -1). */
void mr_sensor_plot_cycle(mr_viewer *v, int delta);

/* E: opens or closes the menu (it starts on the plotted sensor). */
void mr_sensor_menu_toggle(mr_viewer *v);

/* A key while the menu is open: up/down move, enter chooses, escape closes. Returns 1 if
 * the menu took the key. */
int mr_sensor_menu_key(mr_viewer *v, int key);

/* A left click while the menu is open: on an entry chooses it, elsewhere closes the menu.
 * x, y in window coordinates. Returns 1 if the menu took the click. */
int mr_sensor_menu_click(mr_viewer *v, double x, double y);

/* Draws the menu (between mr_draw2d_begin and end); width, height in UI units. */
void mr_sensor_menu_draw(mr_viewer *v, float width, float height);

#endif
