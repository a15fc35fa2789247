/* render/plots.h: draws the plots panel (several small charts with legends, the latest
 * value or the value at the cursor, solver name marks where the solver changed) into a
 * rectangle, using draw2d.
 *
 * Residuals, violations and solver time are drawn on log10 axes; values at or below
 * MR_PLOTS_LOG_FLOOR (exact zeros, typically) are drawn at the floor and the chart says so
 * in its title. Iterations, energy and contact counts use linear axes. */
#ifndef MR_PLOTS_H
#define MR_PLOTS_H

#include "draw2d.h"
#include "plot_history.h"

#define MR_PLOTS_LOG_FLOOR 1e-16

/* Batches the panel into g: call between mr_draw2d_begin and mr_draw2d_end. The charts
 * show the last window_seconds of simulated time; cursor_x, cursor_y (same pixels as the
 * rectangle; anything outside it means "no cursor") select the sample whose values the
 * legends print instead of the latest ones. */
void mr_plots_draw(mr_draw2d *g, const mr_plot_history *h, float x, float y, float w, float h_px,
                   float cursor_x, float cursor_y, double window_seconds);

/* The colour a series is drawn with (opaque), and the convergence curve's. */
void mr_series_color(mr_series s, float rgba[4]);
void mr_plots_curve_color(float rgba[4]);

#endif
