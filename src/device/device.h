/* Device memory: the local arrays of a plan may live where the host cannot
 * address them (a GPU's memory). A backend owns that memory's operations: allocation, copies
 * between it and host memory, and the kernels that pack, unpack and copy a message's
 * elements inside it, on the runs and offsets the host uses (index.h's messages).
 *
 * Backends:
 *   cuda      the CUDA driver, loaded at run time (dlopen libcuda.so.1: no link-time
 *             dependency, the library loads where no driver is); cuda.c.
 *   emulated  for tests on machines without a GPU: "device" memory is mappings the host
 *             cannot touch (PROT_NONE); only the backend's own copies and kernels reach it,
 *             through a second mapping of the same pages, so that a host access to device
 *             memory anywhere else crashes; emulated.c.
 * REDIST_DEVICE_BACKEND=emulated selects the emulated one (tests); the default is cuda.
 *
 * No MPI here. Every function returns REDIST_SUCCESS or an error code with its detail set
 * (redist__fail). */
#ifndef REDIST_DEVICE_H
#define REDIST_DEVICE_H

#include "index/index.h"

#include <stddef.h>

typedef struct redist__device redist__device;

/* The process's backend (loaded once; thread-safe): REDIST_ERR_UNSUPPORTED with the reason
   where it cannot be loaded (no driver, no device). */
int redist__device_get(redist__device **dev);
const char *redist__device_name(const redist__device *dev);

/* A plan's device is the one current when the process's first device plan was created (the
   backend's context): REDIST_ERR_UNSUPPORTED, saying so, if another device is current now
   (one device per process). */
int redist__device_check_current(redist__device *dev);

/* Device memory (of the current device), and pinned host memory for staging. */
int redist__device_alloc(redist__device *dev, size_t bytes, void **ptr);
void redist__device_free(redist__device *dev, void *ptr);
int redist__device_host_alloc(redist__device *dev, size_t bytes, void **ptr);
void redist__device_host_free(redist__device *dev, void *ptr);

/* Pins a host buffer the plan allocated itself (its send and receive buffers, relay slots,
   bounded mode's chunks) so that copies to and from it run at the link's full rate and
   asynchronously; 0 on success. A failure (a memlock limit) only leaves it pageable. */
int redist__device_host_register(redist__device *dev, void *ptr, size_t bytes);
void redist__device_host_unregister(redist__device *dev, void *ptr);

/* The most bytes of a device plan's scratch, the pieces its moves are staged in: 64 MiB, or
   REDIST_DEVICE_STAGE_BYTES (tests: many small pieces); bounded mode (max_buffer_bytes > 0)
   bounds it too. A plan's scratch is no larger than its largest move (staging.c). */
int64_t redist__device_stage_bytes(int64_t max_buffer_bytes);

/* Copies on the stream (NULL: the default stream); asynchronous where the backend is. */
int redist__device_to_host(redist__device *dev, void *host, const void *device, size_t bytes,
                           void *stream);
int redist__device_to_device(redist__device *dev, void *to, const void *from, size_t bytes,
                             void *stream);
int redist__device_from_host(redist__device *dev, void *device, const void *host, size_t bytes,
                             void *stream);
/* Waits for everything posted on the stream. */
int redist__device_sync(redist__device *dev, void *stream);

/* Events: a mark in a stream's work, recorded after some of it is posted; waiting for it
   returns once that work is done (what follows may still run). The pipelining of a device
   plan's messages: each is sent once its own copy off the device is done. */
typedef struct redist__device_event redist__device_event;
int redist__device_event_create(redist__device *dev, redist__device_event **ev);
void redist__device_event_destroy(redist__device *dev, redist__device_event *ev);
int redist__device_event_record(redist__device *dev, redist__device_event *ev, void *stream);
int redist__device_event_wait(redist__device *dev, redist__device_event *ev);

/* A message's index lists where the kernels read them (decode.h's levels and run groups,
   uploaded at plan time). */
typedef struct redist__device_msg redist__device_msg;
int redist__device_upload(redist__device *dev, const redist__msg *m, redist__device_msg **out);
void redist__device_forget(redist__device *dev, redist__device_msg *dm);

/* Kernel: elements [lo, hi) of the uploaded message (buffer order), as redist__move_range:
   kind PACK reads array a and writes the packed elements at b; UNPACK reads packed elements
   at a and writes array b (scaling with sc); COPY reads array a and writes array b. a and b
   are both device memory; the packed side points at element lo. */
int redist__device_move(redist__device *dev, const redist__device_msg *dm, int kind, const char *a,
                        char *b, size_t elsize, const redist__scale *sc, int64_t lo, int64_t hi,
                        void *stream);

/* Inter-process memory (one copy between device arrays of a node's ranks): a handle names
   the device allocation that holds an array, so that another process of the node can map it
   and a kernel there can read it. CUDA: the driver's cuIpcGetMemHandle of the allocation's
   start (cuPointerGetAttribute's range), cuIpcOpenMemHandle; the emulated device: its memory
   file, opened through /proc by the other process. Opaque bytes, the same size everywhere. */
enum { REDIST__IPC_HANDLE_BYTES = 64 };
typedef struct redist__ipc_handle {
    unsigned char bytes[REDIST__IPC_HANDLE_BYTES];
} redist__ipc_handle;
/* The handle of the allocation holding [ptr, ptr + bytes) (bytes 0: ptr), its start's
   distance to ptr in *offset, and its length in *length. REDIST_ERR_UNSUPPORTED with the
   reason where the backend cannot (not its device memory, an allocation the driver cannot
   share: a pool's, a managed one). */
int redist__device_ipc_get(redist__device *dev, const void *ptr, size_t bytes,
                           redist__ipc_handle *h, size_t *offset, size_t *length);
/* Maps the allocation of another process of the node: *base, this process's address of its
   start. REDIST_ERR_ARG where the handle names nothing any more (its owner freed it, or
   exited), REDIST_ERR_UNSUPPORTED where the driver refuses (no peer access, another GPU
   without it); close unmaps it (the allocation itself stays its owner's). */
int redist__device_ipc_open(redist__device *dev, const redist__ipc_handle *h, void **base);
/* 1 if the backend has inter-process memory at all, and the policy does not turn it off. */
int redist__device_has_ipc(const redist__device *dev);
/* REDIST_DEVICE_IPC: whether device plans pull their node peers' messages over inter-process
   memory, and how long a rank keeps a peer's allocation mapped: KEEP (unset, or "1": from one
   execute to the next, closed with the plan), PER_EXECUTE ("per-execute": closed at the end
   of each execute, so that an owner may free its array between executes, which the driver
   requires of a mapped allocation), OFF ("0": every message staged). Anything else reads as
   unset. */
enum { REDIST__IPC_OFF, REDIST__IPC_KEEP, REDIST__IPC_PER_EXECUTE };
int redist__device_ipc_policy(void);
void redist__device_ipc_close(redist__device *dev, void *base);

/* Events between processes (CUDA's cuIpcGetEventHandle / cuIpcOpenEventHandle): ipc_create
   makes an event other processes of the node may open by its handle (*h); ipc_open opens a
   peer's (destroyed with event_destroy: the peer's event stays its own). stream_wait makes
   the work posted on the stream after it wait until the event's most recent record (as of
   this call, in whichever process recorded it) is done, without the host waiting. A device
   plan's one copy on a node orders its pulls with them (onecopy_device.c). has_ipc_events:
   1 if the backend has them. */
int redist__device_ipc_event_create(redist__device *dev, redist__device_event **ev,
                                    redist__ipc_handle *h);
int redist__device_ipc_event_open(redist__device *dev, const redist__ipc_handle *h,
                                  redist__device_event **ev);
int redist__device_stream_wait(redist__device *dev, void *stream, redist__device_event *ev);
int redist__device_has_ipc_events(const redist__device *dev);

/* Kernel: elements [lo, hi) (buffer order) of a message between two ranks, read from the
   sender's array a where the sender's own message `from` puts them (its source side, its
   storage) and written into array b where the receiver's `to` puts them (its destination
   side, scaling with sc): both list the same elements in the same order, so element e of
   one is element e of the other. a may be another process's array (ipc_open). */
int redist__device_pull(redist__device *dev, const redist__device_msg *from,
                        const redist__device_msg *to, const char *a, char *b, size_t elsize,
                        const redist__scale *sc, int64_t lo, int64_t hi, void *stream);

/* Tests: 1 if nothing posted to the device is still outstanding, 0 if something is, -1 if
   the backend cannot tell (the execute's contract: dst complete when it returns). */
int redist__device_idle(redist__device *dev);

/* 1 if ptr is device memory of this backend (REDIST_MEMORY_AUTO), else 0. */
int redist__device_owns(redist__device *dev, const void *ptr);

/* ---- a message flattened for kernels (decode.c; the closed form in decode.h) ------------- */
struct rd_level;
struct rd_run;
/* The run groups of all its levels: the size of the run list decode_build writes. */
int64_t redist__decode_runs(const redist__msg *m);
/* lv[m->nlevels] and runs[redist__decode_runs(m)]: what a kernel reads (decode.h). */
void redist__decode_build(const redist__msg *m, struct rd_level *lv, struct rd_run *runs);

/* ---- the backends ------------------------------------------------------------------------ */
typedef struct redist__device_ops {
    const char *name;
    int (*alloc)(size_t bytes, void **ptr);
    void (*free)(void *ptr);
    int (*host_alloc)(size_t bytes, void **ptr);
    void (*host_free)(void *ptr);
    int (*host_register)(void *ptr, size_t bytes);
    void (*host_unregister)(void *ptr);
    int (*copy)(void *to, const void *from, size_t bytes, int direction, void *stream);
    int (*sync)(void *stream);
    int (*event_create)(redist__device_event **ev);
    void (*event_destroy)(redist__device_event *ev);
    int (*event_record)(redist__device_event *ev, void *stream);
    int (*event_wait)(redist__device_event *ev);
    int (*upload)(const redist__msg *m, redist__device_msg **out);
    void (*forget)(redist__device_msg *dm);
    int (*move)(const redist__device_msg *dm, int kind, const char *a, char *b, size_t elsize,
                const redist__scale *sc, int64_t lo, int64_t hi, void *stream);
    int (*owns)(const void *ptr);
    int (*ipc_get)(const void *ptr, size_t bytes, redist__ipc_handle *h, size_t *offset,
                   size_t *length); /* NULL: no inter-process memory */
    int (*ipc_open)(const redist__ipc_handle *h, void **base);
    void (*ipc_close)(void *base);
    int (*pull)(const redist__device_msg *from, const redist__device_msg *to, const char *a,
                char *b, size_t elsize, const redist__scale *sc, int64_t lo, int64_t hi,
                void *stream);
    int (*ipc_event_create)(redist__device_event **ev, redist__ipc_handle *h); /* NULL: none */
    int (*ipc_event_open)(const redist__ipc_handle *h, redist__device_event **ev);
    int (*stream_wait)(void *stream, redist__device_event *ev);
    int (*idle)(void);          /* NULL: cannot tell */
    int (*check_current)(void); /* NULL: one device only */
} redist__device_ops;
enum { REDIST__TO_HOST, REDIST__TO_DEVICE, REDIST__DEVICE_TO_DEVICE }; /* copy directions */

/* Each loads its backend (REDIST_ERR_UNSUPPORTED with the reason if it cannot). */
int redist__device_emulated_load(const redist__device_ops **ops);
/* The emulated device's copies so far between device memory and host memory that was not
   pinned (host_alloc or host_register): a GPU's slow, synchronous pageable copies. Tests
   check that a plan's executes make none. 0 while the emulated backend is not in use. */
uint64_t redist__device_emulated_pageable_copies(void);
int redist__device_cuda_load(const redist__device_ops **ops);
/* The host address of the emulated device's [p, p + bytes), or NULL where it is not its
   memory: what a GPU-aware MPI reaches through a device pointer (tests' PMPI wrappers hand it
   to MPI in the pointer's place, tests/mpi/test_device_onecopy.c). */
void *redist__device_emulated_view(const void *p, size_t bytes);
/* The emulated device's host waits so far: syncs, and event waits that had work to run
   (tests check that a stream-ordered execute makes none). */
uint64_t redist__device_emulated_host_waits(void);
/* Other processes' allocations (and events) the emulated device has mapped so far (tests:
   a plan maps each peer's src allocation once, not per execute). */
uint64_t redist__device_emulated_ipc_opens(void);

/* Given allocations: those redist_device_alloc made and redist_device_free has not freed
   (given.c), each with a count of the executes in flight on arrays inside it. add records
   one; remove takes it off: REDIST_ERR_ARG if base is not one (a pointer inside one, a
   second free), REDIST_ERR_BUSY while an execute holds it (nothing removed). hold marks the
   allocation holding p in flight and returns its base (NULL: p is in none); release unmarks
   it (NULL: nothing). */
int redist__given_add(void *base, size_t bytes);
int redist__given_remove(const void *base);
void *redist__given_hold(const void *p);
void redist__given_release(const void *base);

#endif
