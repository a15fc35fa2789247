/* libhdf5, loaded when a recording first needs it rather than when the process starts
 * (engine/core/lazy_lib.h says why). The writer (record_h5.c) and the reader (recording.c)
 * include this header instead of <hdf5.h>: it includes <hdf5.h> for the types and
 * constants, then turns every function and every predefined type they use into an entry
 * of one table, which mr_h5_load fills with dlopen and dlsym. Their code still reads as
 * plain HDF5 calls. The list and the macros below must name the same functions, and the
 * build checks it: a function called but not turned into an entry is an undefined symbol
 * (libmoreau does not link libhdf5), an entry without a list item does not compile. */
#ifndef MR_H5_API_H
#define MR_H5_API_H

#include <hdf5.h>

/* The functions called through the table: each a pointer of the function's own type. */
#define MR_H5_FUNCTIONS(X)                                                                     \
  X(H5Aclose) X(H5Acreate2) X(H5Aopen) X(H5Awrite) X(H5Dclose) X(H5Dcreate2) X(H5Dget_space)  \
  X(H5Dopen2) X(H5Dread) X(H5Dset_extent) X(H5Dwrite) X(H5Eset_auto2) X(H5Ewalk2)             \
  X(H5Fclose) X(H5Fcreate) X(H5Fflush) X(H5Fopen) X(H5Lexists) X(H5Pclose) X(H5Pcreate)      \
  X(H5Pset_chunk) X(H5Pset_obj_track_times) X(H5Sclose) X(H5Screate) X(H5Screate_simple)     \
  X(H5Sget_simple_extent_dims) X(H5Sget_simple_extent_ndims) X(H5Sselect_hyperslab)         \
  X(H5Tclose) X(H5Tcopy) X(H5Tset_size) X(H5Tset_strpad) X(H5dont_atexit) X(H5open)         \
  X(H5get_libversion)

/* The library's predefined types and property classes: ids it sets up in H5open, read by
 * the macros H5T_NATIVE_DOUBLE, H5P_FILE_CREATE and the like. */
#define MR_H5_GLOBALS(X)                                                                       \
  X(H5T_NATIVE_DOUBLE_g) X(H5T_NATIVE_INT_g) X(H5T_C_S1_g) X(H5T_IEEE_F64LE_g)                \
  X(H5T_STD_I32LE_g) X(H5P_CLS_FILE_CREATE_ID_g) X(H5P_CLS_DATASET_CREATE_ID_g)

#define MR_H5_POINTER(name) __typeof__(name) *name;
typedef struct mr_h5_api {
  MR_H5_FUNCTIONS(MR_H5_POINTER)
  MR_H5_GLOBALS(MR_H5_POINTER)
} mr_h5_api;
#undef MR_H5_POINTER

extern mr_h5_api mr_h5;

/* Loads libhdf5 once per process (thread-safe), with its exit handler off (record_h5.c) and
 * the library opened. 0, or -1 and "PATH: cannot record or read HDF5: REASON" in err, PATH
 * being the file the caller was about to open. */
int mr_h5_load(const char *path, char *err, int errlen);

#ifndef MR_H5_API_IMPL
/* From here on a call names the table's entry (the name inside the expansion is not
 * expanded again), and the macros of the predefined types read the ids it points to; the
 * loader has opened the library and checked its version, which the constants' macros
 * would otherwise do first (H5OPEN, H5CHECK). */
#define H5Aclose (mr_h5.H5Aclose)
#define H5Acreate2 (mr_h5.H5Acreate2)
#define H5Aopen (mr_h5.H5Aopen)
#define H5Awrite (mr_h5.H5Awrite)
#define H5Dclose (mr_h5.H5Dclose)
#define H5Dcreate2 (mr_h5.H5Dcreate2)
#define H5Dget_space (mr_h5.H5Dget_space)
#define H5Dopen2 (mr_h5.H5Dopen2)
#define H5Dread (mr_h5.H5Dread)
#define H5Dset_extent (mr_h5.H5Dset_extent)
#define H5Dwrite (mr_h5.H5Dwrite)
#define H5Eset_auto2 (mr_h5.H5Eset_auto2)
#define H5Ewalk2 (mr_h5.H5Ewalk2)
#define H5Fclose (mr_h5.H5Fclose)
#define H5Fcreate (mr_h5.H5Fcreate)
#define H5Fflush (mr_h5.H5Fflush)
#define H5Fopen (mr_h5.H5Fopen)
#define H5Lexists (mr_h5.H5Lexists)
#define H5Pclose (mr_h5.H5Pclose)
#define H5Pcreate (mr_h5.H5Pcreate)
#define H5Pset_chunk (mr_h5.H5Pset_chunk)
#define H5Pset_obj_track_times (mr_h5.H5Pset_obj_track_times)
#define H5Sclose (mr_h5.H5Sclose)
#define H5Screate (mr_h5.H5Screate)
#define H5Screate_simple (mr_h5.H5Screate_simple)
#define H5Sget_simple_extent_dims (mr_h5.H5Sget_simple_extent_dims)
#define H5Sget_simple_extent_ndims (mr_h5.H5Sget_simple_extent_ndims)
#define H5Sselect_hyperslab (mr_h5.H5Sselect_hyperslab)
#define H5Tclose (mr_h5.H5Tclose)
#define H5Tcopy (mr_h5.H5Tcopy)
#define H5Tset_size (mr_h5.H5Tset_size)
#define H5Tset_strpad (mr_h5.H5Tset_strpad)
#undef H5OPEN
#define H5OPEN
#undef H5CHECK
#define H5CHECK
#define H5T_NATIVE_DOUBLE_g (*mr_h5.H5T_NATIVE_DOUBLE_g)
#define H5T_NATIVE_INT_g (*mr_h5.H5T_NATIVE_INT_g)
#define H5T_C_S1_g (*mr_h5.H5T_C_S1_g)
#define H5T_IEEE_F64LE_g (*mr_h5.H5T_IEEE_F64LE_g)
#define H5T_STD_I32LE_g (*mr_h5.H5T_STD_I32LE_g)
#define H5P_CLS_FILE_CREATE_ID_g (*mr_h5.H5P_CLS_FILE_CREATE_ID_g)
#define H5P_CLS_DATASET_CREATE_ID_g (*mr_h5.H5P_CLS_DATASET_CREATE_ID_g)
#endif

#endif
