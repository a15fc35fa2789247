/* Trajectory recording: the state after every K-th step, written to disk.
 *
 * The format follows the file name's extension (.csv, or .h5 / .hdf5).
 *
 * CSV (DESIGN.md sec. 5) has the header
 *   time,qpos_0..qpos_{nq-1},qvel_0..qvel_{nv-1},ncon,iters,residual,energy,status,natural_map
 * (residual and status: the solver's own measure and verdict, 0 converged, 1 at its cap, 2
 * failed; natural_map: the NCP natural-map residual of its impulses, the same measure for
 * every solver), then, for a model with actuator activations, act_0..act_{na-1}, then one
 * column per sensor number, sensor_NAME (scalars) or sensor_NAME_i (mr_sensor_column);
 * numbers are printed with %.17g, so that every double reads back exactly. It carries no
 * controls (the columns are a contract other tools parse); record to HDF5 for those.
 *
 * HDF5 (through libhdf5) holds one row per recorded state in chunked datasets that grow
 * with the run (H5S_UNLIMITED), so memory stays flat however long the run:
 *   /time (rows)            simulated time of the state
 *   /qpos (rows x nq)       /qvel (rows x nv)
 *   /ctrl (rows x nu)       the controls applied over the step that starts at this row's
 *                           time: d->ctrl clamped to ctrlrange as the actuators use it
 *   /ncon (int, rows)       contacts found by the step that produced the row
 *   /iters (int, rows)      solver iterations of that step
 *   /residual (rows)        the solver's final residual, by its own measure
 *   /energy (rows)          kinetic + potential energy of the state
 *   /solver_status (int)    0 converged, 1 hit the iteration cap, 2 failed
 *   /nefc (int)             constraint rows of the step
 *   /primal, /dual, /complementarity, /natural_map, /penetration, /loop_closure
 *                           the step's physical error measures (mr_metrics, L-infinity):
 *                           natural_map is the NCP residual every solver is judged by
 *   /act (rows x na)        actuator activations (rows x 0 without)
 *   /sensordata (rows x nsensordata)  d->sensordata; its attributes name the columns
 *                           (columns, as in the CSV header) and the sensors (names, types,
 *                           adr, dim)
 * and the root attributes model, solver, integrator, timestep, moreau_version, nq, nv, nu,
 * na, nsensordata, complete. No object carries a time stamp: identical runs write
 * identical bytes. A row's position and velocity sensors are those of its state
 * (mr_sensors_state, called by the writer's caller); its acceleration and force sensors
 * those of the step that ended at it (0 in row 0, which no step produced).
 * Row 0 is the initial state: it came from no step, so its step statistics are zero.
 *
 * Nothing is lost:
 * - A recording is written to "FILE.part" beside FILE and renamed to FILE only by
 *   mr_recorder_finish, so a file under its final name is always complete. A recording
 *   whose writes fail (a full disk) stays FILE.part with the rows that reached the disk;
 *   HDF5 files also carry a root attribute complete = 0 until they are finished.
 * - Rows are kept in memory and flushed to FILE.part every MR_RECORD_FLUSH_ROWS rows or
 *   MR_RECORD_FLUSH_SECONDS of wall time, whichever comes first. A CSV flush is one write of
 *   whole rows; an HDF5 flush extends the datasets, writes the rows and calls H5Fflush, and
 *   HDF5 is not touched between flushes. So after a crash or kill -9, FILE.part is readable
 *   (h5dump, mr_recording_load) with every row up to the last flush. The HDF5 file uses the
 *   library's earliest format on purpose: newer superblocks mark a file "open for writing"
 *   and readers then refuse a file whose writer was killed.
 * - SIGINT/SIGTERM: the caller (moreau run) finishes the current step and then calls
 *   mr_recorder_finish, so the file holds every completed step under its final name.
 *
 * Safe to use from several threads at once, one recorder per thread (libhdf5 here is the
 * thread-safe build). */
#ifndef MR_RECORD_H
#define MR_RECORD_H

#include "moreau.h"

enum { MR_RECORD_FLUSH_ROWS = 1024 };
#define MR_RECORD_FLUSH_SECONDS 1.0

typedef struct mr_recorder mr_recorder;

/* 0 if the file name's extension names a format this build can write; else -1 and one line
 * "FILE: what is wrong" in err. Lets a caller reject a bad name before a long load. */
int mr_recorder_check_path(const char *path, char *err, int errlen);

/* Creates FILE.part and writes the header. d gives the run's settings for the HDF5
 * attributes (timestep, solver, integrator). NULL and one line in err on failure. */
mr_recorder *mr_recorder_open(const mr_model *m, const mr_data *d, const char *path, char *err,
                              int errlen);

/* Appends one row: d's time, qpos, qvel, ctrl, act and step statistics, and the given energy.
 * Allocates nothing. -1 and one line in err on a write error. */
int mr_recorder_write(mr_recorder *r, const mr_data *d, double energy, char *err, int errlen);

/* Writes out the rows kept in memory now (the recorder also does so by itself). */
int mr_recorder_flush(mr_recorder *r, char *err, int errlen);

/* Flushes, closes and renames FILE.part to FILE, then frees r. On failure keeps FILE.part
 * (every row that reached it) and returns -1 with one line in err. */
int mr_recorder_finish(mr_recorder *r, char *err, int errlen);

/* After a failed write: closes and keeps FILE.part as it is, and frees r. */
void mr_recorder_keep(mr_recorder *r);

/* Closes, removes FILE.part and frees r (NULL is fine). */
void mr_recorder_abort(mr_recorder *r);

/* Rows written so far (header not counted). */
long mr_recorder_rows(const mr_recorder *r);

/* ------------------------------------------------------------------ internal: the formats
 * record.c dispatches to these; nothing else calls them. */

typedef struct mr_record_csv mr_record_csv;
typedef struct mr_record_h5 mr_record_h5;

mr_record_csv *mr_record_csv_open(const mr_model *m, const char *path, char *err, int errlen);
int mr_record_csv_write(mr_record_csv *r, const mr_data *d, double energy, char *err, int errlen);
int mr_record_csv_flush(mr_record_csv *r, char *err, int errlen);
int mr_record_csv_finish(mr_record_csv *r, char *err, int errlen);
void mr_record_csv_keep(mr_record_csv *r);
void mr_record_csv_abort(mr_record_csv *r);

mr_record_h5 *mr_record_h5_open(const mr_model *m, const mr_data *d, const char *path, char *err,
                                int errlen);
int mr_record_h5_write(mr_record_h5 *r, const mr_data *d, double energy, char *err, int errlen);
int mr_record_h5_flush(mr_record_h5 *r, char *err, int errlen);
int mr_record_h5_finish(mr_record_h5 *r, char *err, int errlen);
void mr_record_h5_keep(mr_record_h5 *r);
void mr_record_h5_abort(mr_record_h5 *r);

/* Monotonic wall-clock seconds, for the flush interval. */
double mr_record_clock(void);

/* "euler" / "midpoint" and the solver's registry name (the default's when opt.solver < 0). */
const char *mr_record_integrator_name(int integrator);
const char *mr_record_solver_name(int solver);

#endif
