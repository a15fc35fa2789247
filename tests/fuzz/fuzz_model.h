/* The small model the recording and control-table harnesses read their files against:
 * two hinges driven by position actuators a0 and a1 (control range +-1), and a free box
 * over a plane, so recordings have nq 9, nv 8, nu 2 and the steps touch contact. */
#ifndef MR_FUZZ_MODEL_H
#define MR_FUZZ_MODEL_H

#include "fuzz_common.h"

static const char fuzz_model_xml[] =
    "<mujoco model=\"fuzz\">\n"
    "  <worldbody>\n"
    "    <geom type=\"plane\" size=\"5 5 0.1\"/>\n"
    "    <body name=\"arm\" pos=\"0 0 1\">\n"
    "      <joint name=\"j0\" type=\"hinge\" axis=\"0 1 0\"/>\n"
    "      <geom type=\"capsule\" fromto=\"0 0 0 0.3 0 0\" size=\"0.05\"/>\n"
    "      <body pos=\"0.3 0 0\">\n"
    "        <joint name=\"j1\" type=\"hinge\" axis=\"0 1 0\"/>\n"
    "        <geom type=\"capsule\" fromto=\"0 0 0 0.3 0 0\" size=\"0.05\"/>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name=\"box\" pos=\"1 0 0.2\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\"/></body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <position name=\"a0\" joint=\"j0\" kp=\"10\" ctrlrange=\"-1 1\" ctrllimited=\"true\"/>\n"
    "    <position name=\"a1\" joint=\"j1\" kp=\"10\" ctrlrange=\"-1 1\" ctrllimited=\"true\"/>\n"
    "  </actuator>\n"
    "</mujoco>\n";

/* Loaded once per process. */
static inline const mr_model *fuzz_model(void) {
  static mr_model *m;
  if (m) return m;
  char path[600], err[1024];
  fuzz_write("model.xml", (const uint8_t *)fuzz_model_xml, sizeof fuzz_model_xml - 1, path,
             sizeof path);
  m = mr_model_load(path, NULL, err, (int)sizeof err);
  if (!m) {
    fprintf(stderr, "the fuzz model does not load: %s\n", err);
    abort();
  }
  return m;
}

#endif
