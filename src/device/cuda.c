/* The CUDA backend (device.h): the driver API loaded at run time with dlopen, so that the
 * library neither links nor needs libcuda where no GPU is (NCCL's and cuFFT's loaders do the
 * same). Where libcuda.so.1 cannot be loaded, has no device, or this build has no kernels (no
 * nvcc when it was built), a plan asking for CUDA memory gets REDIST_ERR_UNSUPPORTED with the
 * reason.
 *
 * The context is the one current at the first device plan's creation (the CUDA runtime's
 * cudaSetDevice makes it so), else device 0's primary context. The kernels are kernels.cu's,
 * built by nvcc at build time into one fat binary (machine code for sm_75 .. sm_90 and
 * compute_90 PTX, which the driver compiles for newer GPUs at load) and embedded
 * (kernels_image.c, generated). A message's index lists (decode.h) are copied to device memory
 * at plan time; a kernel launch covers a piece of a message, one thread per element.
 *
 * Not verified on a GPU yet (the run on a GPU node is pending). Types are declared here
 * (the few the calls need), so that building needs no CUDA headers. */
#define _GNU_SOURCE
#include "device/device.h"

#include "device/decode.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
enum { CUDA_SUCCESS = 0, CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2, CU_MEMORYTYPE_DEVICE = 2 };
/* Inter-process memory (cuda.h: CUipcMemHandle, 64 bytes passed by value) */
typedef struct {
    unsigned char data[64];
} CUipcMemHandle;
enum {
    CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE = 10,
    CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
    CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
    CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1
};
_Static_assert(sizeof(CUipcMemHandle) == REDIST__IPC_HANDLE_BYTES, "CUDA's handle size");
typedef struct { /* cuda.h: CUipcEventHandle, 64 bytes passed by value */
    unsigned char data[64];
} CUipcEventHandle;
_Static_assert(sizeof(CUipcEventHandle) == REDIST__IPC_HANDLE_BYTES, "CUDA's event handle size");

#if defined(REDIST_HAVE_KERNELS)
/* kernels_image.c, generated from kernels.cu: nvcc's fat binary */
extern const unsigned char redist__kernels_image[];
#endif

static struct {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*CtxGetCurrent)(CUcontext *);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemAllocHost)(void **, size_t);
    CUresult (*MemFreeHost)(void *);
    CUresult (*MemHostRegister)(void *, size_t, unsigned);
    CUresult (*MemHostUnregister)(void *);
    CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*StreamSynchronize)(CUstream);
    CUresult (*EventCreate)(CUevent *, unsigned);
    CUresult (*EventDestroy)(CUevent);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*StreamWaitEvent)(CUstream, CUevent, unsigned);
    CUresult (*IpcGetEventHandle)(CUipcEventHandle *, CUevent);
    CUresult (*IpcOpenEventHandle)(CUevent *, CUipcEventHandle);
    CUresult (*PointerGetAttribute)(void *, int, CUdeviceptr);
    CUresult (*IpcGetMemHandle)(CUipcMemHandle *, CUdeviceptr);
    CUresult (*IpcOpenMemHandle)(CUdeviceptr *, CUipcMemHandle, unsigned);
    CUresult (*IpcCloseMemHandle)(CUdeviceptr);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **);
    CUresult (*GetErrorString)(CUresult, const char **);
} cu;
static CUcontext ctx;
static CUfunction move_kernel, scale_kernel, pull_kernel, scale_pull_kernel;

static int cu_fail(CUresult rc, const char *what)
{
    const char *s = NULL;
    if (cu.GetErrorString == NULL || cu.GetErrorString(rc, &s) != CUDA_SUCCESS || s == NULL)
        s = "unknown error";
    return redist__fail(REDIST_ERR_UNSUPPORTED, "CUDA: %s failed (%d: %s)", what, rc, s);
}
#define CU(call, what)                                                                             \
    do {                                                                                           \
        CUresult rc_ = (call);                                                                     \
        if (rc_ != CUDA_SUCCESS)                                                                   \
            return cu_fail(rc_, what);                                                             \
    } while (0)

/* The calls run on the plan's context whatever thread calls (MPI's calling thread). */
static int current(void)
{
    CU(cu.CtxSetCurrent(ctx), "cuCtxSetCurrent");
    return REDIST_SUCCESS;
}

static int c_alloc(size_t bytes, void **ptr)
{
    CUdeviceptr d = 0;
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CU(cu.MemAlloc(&d, bytes ? bytes : 1), "cuMemAlloc");
    *ptr = (void *)(uintptr_t)d;
    return REDIST_SUCCESS;
}

static void c_free(void *ptr)
{
    if (current() == REDIST_SUCCESS)
        cu.MemFree((CUdeviceptr)(uintptr_t)ptr);
}

static int c_host_alloc(size_t bytes, void **ptr)
{
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CU(cu.MemAllocHost(ptr, bytes ? bytes : 1), "cuMemAllocHost"); /* pinned: DMA-able */
    return REDIST_SUCCESS;
}

static void c_host_free(void *ptr)
{
    if (current() == REDIST_SUCCESS)
        cu.MemFreeHost(ptr);
}

static int c_host_register(void *ptr, size_t bytes)
{
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CU(cu.MemHostRegister(ptr, bytes, 0), "cuMemHostRegister");
    return REDIST_SUCCESS;
}

static void c_host_unregister(void *ptr)
{
    if (current() == REDIST_SUCCESS)
        cu.MemHostUnregister(ptr);
}

static int c_copy(void *to, const void *from, size_t bytes, int direction, void *stream)
{
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CUstream s = stream;
    if (direction == REDIST__TO_HOST)
        CU(cu.MemcpyDtoHAsync(to, (CUdeviceptr)(uintptr_t)from, bytes, s), "cuMemcpyDtoHAsync");
    else if (direction == REDIST__TO_DEVICE)
        CU(cu.MemcpyHtoDAsync((CUdeviceptr)(uintptr_t)to, from, bytes, s), "cuMemcpyHtoDAsync");
    else
        CU(cu.MemcpyDtoDAsync((CUdeviceptr)(uintptr_t)to, (CUdeviceptr)(uintptr_t)from, bytes, s),
           "cuMemcpyDtoDAsync");
    return REDIST_SUCCESS;
}

static int c_sync(void *stream)
{
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CU(cu.StreamSynchronize((CUstream)stream), "cuStreamSynchronize");
    return REDIST_SUCCESS;
}

/* A redist__device_event is a CUevent (timing off: the cheaper kind). */
enum { CU_EVENT_DISABLE_TIMING = 2 };
static int c_event_create(redist__device_event **ev)
{
    CUevent e = NULL;
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CU(cu.EventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    *ev = (redist__device_event *)e;
    return REDIST_SUCCESS;
}

static void c_event_destroy(redist__device_event *ev)
{
    if (current() == REDIST_SUCCESS)
        cu.EventDestroy((CUevent)ev);
}

static int c_event_record(redist__device_event *ev, void *stream)
{
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CU(cu.EventRecord((CUevent)ev, (CUstream)stream), "cuEventRecord");
    return REDIST_SUCCESS;
}

static int c_event_wait(redist__device_event *ev)
{
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CU(cu.EventSynchronize((CUevent)ev), "cuEventSynchronize");
    return REDIST_SUCCESS;
}

/* An event other processes may open: interprocess events must not time (cuda.h). */
enum { CU_EVENT_INTERPROCESS = 4 };
static int c_ipc_event_create(redist__device_event **ev, redist__ipc_handle *h)
{
    CUevent e = NULL;
    CUipcEventHandle handle;
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CU(cu.EventCreate(&e, CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS),
       "cuEventCreate (interprocess)");
    CUresult rc = cu.IpcGetEventHandle(&handle, e);
    if (rc != CUDA_SUCCESS) {
        cu.EventDestroy(e);
        return cu_fail(rc, "cuIpcGetEventHandle");
    }
    memcpy(h->bytes, handle.data, sizeof h->bytes);
    *ev = (redist__device_event *)e;
    return REDIST_SUCCESS;
}

static int c_ipc_event_open(const redist__ipc_handle *h, redist__device_event **ev)
{
    CUevent e = NULL;
    CUipcEventHandle handle;
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    memcpy(handle.data, h->bytes, sizeof handle.data);
    CU(cu.IpcOpenEventHandle(&e, handle), "cuIpcOpenEventHandle");
    *ev = (redist__device_event *)e;
    return REDIST_SUCCESS;
}

static int c_stream_wait(void *stream, redist__device_event *ev)
{
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CU(cu.StreamWaitEvent((CUstream)stream, (CUevent)ev, 0), "cuStreamWaitEvent");
    return REDIST_SUCCESS;
}

/* A message's lists in one device allocation: the levels, then the run groups. */
struct redist__device_msg {
    int nlevels;
    CUdeviceptr lists, runs;
};

static void c_forget(redist__device_msg *dm)
{
    if (dm->lists != 0 && current() == REDIST_SUCCESS)
        cu.MemFree(dm->lists);
    free(dm);
}

static int c_upload(const redist__msg *m, redist__device_msg **out)
{
    int64_t nruns = redist__decode_runs(m);
    size_t lbytes = (size_t)m->nlevels * sizeof(rd_level), rbytes = (size_t)nruns * sizeof(rd_run);
    char *host = malloc(lbytes + rbytes + 1);
    redist__device_msg *dm = calloc(1, sizeof *dm);
    int err = host != NULL && dm != NULL ? current()
                                         : redist__fail(REDIST_ERR_NOMEM, "a message's lists");
    if (err == REDIST_SUCCESS) {
        redist__decode_build(m, (rd_level *)(void *)host, (rd_run *)(void *)(host + lbytes));
        CUresult rc = cu.MemAlloc(&dm->lists, lbytes + rbytes + 1);
        if (rc == CUDA_SUCCESS)
            rc = cu.MemcpyHtoD(dm->lists, host, lbytes + rbytes);
        if (rc != CUDA_SUCCESS)
            err = cu_fail(rc, "uploading a message's index lists");
        dm->nlevels = m->nlevels;
        dm->runs = dm->lists + lbytes;
    }
    free(host);
    if (err != REDIST_SUCCESS && dm != NULL)
        c_forget(dm);
    *out = err == REDIST_SUCCESS ? dm : NULL;
    return err;
}

static int c_move(const redist__device_msg *dm, int kind, const char *a, char *b, size_t elsize,
                  const redist__scale *sc, int64_t lo, int64_t hi, void *stream)
{
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    int knd = kind == REDIST__PACK ? 0 : kind == REDIST__UNPACK ? 1 : 2, nl = dm->nlevels;
    int es = (int)elsize, skind = 0, conj = 0, bz = 0, az = 0;
    long long l0 = lo, h0 = hi;
    double ar = 0, ai = 0, br = 0, bi = 0;
    CUdeviceptr lv = dm->lists, runs = dm->runs;
    const char *pa = a;
    char *pb = b;
    void *args[] = {&lv, &nl, &runs, &knd, &pa, &pb, &l0, &h0, &es};
    void *sargs[] = {&lv,    &nl,   &runs, &knd, &pa, &pb, &l0, &h0,
                     &skind, &conj, &bz,   &az,  &ar, &ai, &br, &bi};
    int scaled = sc != NULL && kind != REDIST__PACK;
    if (scaled) {
        skind = sc->kind, conj = sc->conjugate, bz = sc->beta_zero, az = sc->alpha_zero;
        ar = sc->alpha[0], ai = sc->alpha[1], br = sc->beta[0], bi = sc->beta[1];
    }
    int64_t n = hi - lo, threads = 256, blocks = (n + threads - 1) / threads;
    if (blocks > 65535)
        blocks = 65535; /* the kernel's loop covers the rest */
    CU(cu.LaunchKernel(scaled ? scale_kernel : move_kernel, (unsigned)blocks, 1, 1,
                       (unsigned)threads, 1, 1, 0, (CUstream)stream, scaled ? sargs : args, NULL),
       "cuLaunchKernel");
    return REDIST_SUCCESS;
}

/* A pull: as c_move's COPY, with the source offsets from the sender's lists. */
static int c_pull(const redist__device_msg *from, const redist__device_msg *to, const char *a,
                  char *b, size_t elsize, const redist__scale *sc, int64_t lo, int64_t hi,
                  void *stream)
{
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    int sn = from->nlevels, dn = to->nlevels, es = (int)elsize, skind = 0, conj = 0, bz = 0, az = 0;
    long long l0 = lo, h0 = hi;
    double ar = 0, ai = 0, br = 0, bi = 0;
    CUdeviceptr sl = from->lists, sr = from->runs, dl = to->lists, dr = to->runs;
    const char *pa = a;
    char *pb = b;
    void *args[] = {&sl, &sn, &sr, &dl, &dn, &dr, &pa, &pb, &l0, &h0, &es};
    void *sargs[] = {&sl, &sn,    &sr,   &dl, &dn, &dr, &pa, &pb, &l0,
                     &h0, &skind, &conj, &bz, &az, &ar, &ai, &br, &bi};
    if (sc != NULL) {
        skind = sc->kind, conj = sc->conjugate, bz = sc->beta_zero, az = sc->alpha_zero;
        ar = sc->alpha[0], ai = sc->alpha[1], br = sc->beta[0], bi = sc->beta[1];
    }
    int64_t n = hi - lo, threads = 256, blocks = (n + threads - 1) / threads;
    if (blocks > 65535)
        blocks = 65535;
    CU(cu.LaunchKernel(sc != NULL ? scale_pull_kernel : pull_kernel, (unsigned)blocks, 1, 1,
                       (unsigned)threads, 1, 1, 0, (CUstream)stream, sc != NULL ? sargs : args,
                       NULL),
       "cuLaunchKernel (a pull)");
    return REDIST_SUCCESS;
}

/* The driver's handle of the allocation holding ptr (its range's start: a handle names a
   whole cuMemAlloc), if the driver can share it the legacy way (not a pool's or a VMM
   allocation without a shareable handle). */
static int c_ipc_get(const void *ptr, size_t bytes, redist__ipc_handle *h, size_t *offset,
                     size_t *length)
{
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)ptr, start = 0;
    size_t size = 0;
    int capable = 0;
    CU(cu.PointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, p),
       "cuPointerGetAttribute (the allocation's start)");
    CU(cu.PointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, p),
       "cuPointerGetAttribute (the allocation's size)");
    if (cu.PointerGetAttribute(&capable, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, p) !=
            CUDA_SUCCESS ||
        !capable)
        return redist__fail(REDIST_ERR_UNSUPPORTED,
                            "CUDA: the allocation holding %p cannot be shared with another "
                            "process (cuIpcGetMemHandle: a pool's or virtual memory)",
                            ptr);
    if (p + bytes > start + size)
        return redist__fail(REDIST_ERR_ARG,
                            "CUDA: %zu bytes at %p pass the end of their "
                            "allocation",
                            bytes, ptr);
    CUipcMemHandle handle;
    CU(cu.IpcGetMemHandle(&handle, start), "cuIpcGetMemHandle");
    memcpy(h->bytes, handle.data, sizeof handle.data);
    *offset = (size_t)(p - start);
    *length = size;
    return REDIST_SUCCESS;
}

static int c_ipc_open(const redist__ipc_handle *h, void **base)
{
    int err = current();
    if (err != REDIST_SUCCESS)
        return err;
    CUipcMemHandle handle;
    memcpy(handle.data, h->bytes, sizeof handle.data);
    CUdeviceptr d = 0;
    CU(cu.IpcOpenMemHandle(&d, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
       "cuIpcOpenMemHandle (another process's device array)");
    *base = (void *)(uintptr_t)d;
    return REDIST_SUCCESS;
}

static void c_ipc_close(void *base)
{
    if (current() == REDIST_SUCCESS)
        cu.IpcCloseMemHandle((CUdeviceptr)(uintptr_t)base);
}

static int c_owns(const void *ptr)
{
    unsigned kind = 0;
    return current() == REDIST_SUCCESS &&
           cu.PointerGetAttribute(&kind, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                  (CUdeviceptr)(uintptr_t)ptr) == CUDA_SUCCESS &&
           kind == CU_MEMORYTYPE_DEVICE;
}

/* The kernels are loaded in the backend's context: a thread whose current context is another
   (cudaSetDevice to another device) is refused rather than given kernels and memory that do
   not match. No current context is fine (the backend sets its own). */
static int c_check_current(void)
{
    CUcontext now = NULL;
    CU(cu.CtxGetCurrent(&now), "cuCtxGetCurrent");
    if (now != NULL && now != ctx)
        return redist__fail(REDIST_ERR_UNSUPPORTED,
                            "CUDA: the current device (context) is not the one this process's "
                            "first device plan was made on; redist supports one device per "
                            "process");
    return REDIST_SUCCESS;
}

static const redist__device_ops cuda_ops = {
    .name = "CUDA",
    .alloc = c_alloc,
    .free = c_free,
    .host_alloc = c_host_alloc,
    .host_free = c_host_free,
    .host_register = c_host_register,
    .host_unregister = c_host_unregister,
    .copy = c_copy,
    .sync = c_sync,
    .upload = c_upload,
    .forget = c_forget,
    .move = c_move,
    .owns = c_owns,
    .ipc_get = c_ipc_get,
    .ipc_event_create = c_ipc_event_create,
    .ipc_event_open = c_ipc_event_open,
    .stream_wait = c_stream_wait,
    .ipc_open = c_ipc_open,
    .ipc_close = c_ipc_close,
    .pull = c_pull,
    .event_create = c_event_create,
    .event_destroy = c_event_destroy,
    .event_record = c_event_record,
    .event_wait = c_event_wait,
    .check_current = c_check_current,
};

static int resolve(void *lib)
{
    static const struct {
        const char *name;
        size_t at;
    } table[] = {
#define ENTRY(field, symbol) {symbol, offsetof(__typeof__(cu), field)}
        ENTRY(Init, "cuInit"),
        ENTRY(DeviceGet, "cuDeviceGet"),
        ENTRY(DeviceGetCount, "cuDeviceGetCount"),
        ENTRY(CtxGetCurrent, "cuCtxGetCurrent"),
        ENTRY(CtxSetCurrent, "cuCtxSetCurrent"),
        ENTRY(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
        ENTRY(MemAlloc, "cuMemAlloc_v2"),
        ENTRY(MemFree, "cuMemFree_v2"),
        ENTRY(MemAllocHost, "cuMemAllocHost_v2"),
        ENTRY(MemFreeHost, "cuMemFreeHost"),
        ENTRY(MemHostRegister, "cuMemHostRegister_v2"),
        ENTRY(MemHostUnregister, "cuMemHostUnregister"),
        ENTRY(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
        ENTRY(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
        ENTRY(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
        ENTRY(MemcpyHtoD, "cuMemcpyHtoD_v2"),
        ENTRY(StreamSynchronize, "cuStreamSynchronize"),
        ENTRY(EventCreate, "cuEventCreate"),
        ENTRY(EventDestroy, "cuEventDestroy_v2"),
        ENTRY(EventRecord, "cuEventRecord"),
        ENTRY(EventSynchronize, "cuEventSynchronize"),
        ENTRY(StreamWaitEvent, "cuStreamWaitEvent"),
        ENTRY(IpcGetEventHandle, "cuIpcGetEventHandle"),
        ENTRY(IpcOpenEventHandle, "cuIpcOpenEventHandle"),
        ENTRY(PointerGetAttribute, "cuPointerGetAttribute"),
        ENTRY(IpcGetMemHandle, "cuIpcGetMemHandle"),
        ENTRY(IpcOpenMemHandle, "cuIpcOpenMemHandle_v2"),
        ENTRY(IpcCloseMemHandle, "cuIpcCloseMemHandle"),
        ENTRY(ModuleLoadData, "cuModuleLoadData"),
        ENTRY(ModuleGetFunction, "cuModuleGetFunction"),
        ENTRY(LaunchKernel, "cuLaunchKernel"),
        ENTRY(GetErrorString, "cuGetErrorString"),
#undef ENTRY
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        void *f = dlsym(lib, table[i].name);
        if (f == NULL)
            return redist__fail(REDIST_ERR_UNSUPPORTED, "CUDA: the driver has no %s",
                                table[i].name);
        memcpy((char *)&cu + table[i].at, &f, sizeof f);
    }
    return REDIST_SUCCESS;
}

int redist__device_cuda_load(const redist__device_ops **ops)
{
    *ops = NULL;
#if !defined(REDIST_HAVE_KERNELS)
    (void)cuda_ops; /* compiled and checked in every build, used where the kernels are */
    (void)resolve;
    return redist__fail(REDIST_ERR_UNSUPPORTED,
                        "CUDA device memory: this build has no device kernels (nvcc was not found "
                        "when it was built)");
#else
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *why = dlerror();
        return redist__fail(REDIST_ERR_UNSUPPORTED,
                            "CUDA device memory needs the CUDA driver, which cannot be loaded "
                            "here (%.160s)",
                            why != NULL ? why : "libcuda.so.1: not found");
    }
    int err = resolve(lib), count = 0; /* the library stays loaded: the plans use it */
    if (err != REDIST_SUCCESS)
        return err;
    CU(cu.Init(0), "cuInit");
    CU(cu.DeviceGetCount(&count), "cuDeviceGetCount");
    if (count < 1)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "CUDA: the driver sees no device");
    CU(cu.CtxGetCurrent(&ctx), "cuCtxGetCurrent");
    if (ctx == NULL) { /* no runtime context yet: device 0's primary context */
        CUdevice d = 0;
        CU(cu.DeviceGet(&d, 0), "cuDeviceGet");
        CU(cu.DevicePrimaryCtxRetain(&ctx, d), "cuDevicePrimaryCtxRetain");
    }
    CU(cu.CtxSetCurrent(ctx), "cuCtxSetCurrent");
    CUmodule mod = NULL;
    CU(cu.ModuleLoadData(&mod, redist__kernels_image), "loading the kernels (cuModuleLoadData)");
    CU(cu.ModuleGetFunction(&move_kernel, mod, "redist_move"), "cuModuleGetFunction");
    CU(cu.ModuleGetFunction(&scale_kernel, mod, "redist_scale_move"), "cuModuleGetFunction");
    CU(cu.ModuleGetFunction(&pull_kernel, mod, "redist_pull"), "cuModuleGetFunction");
    CU(cu.ModuleGetFunction(&scale_pull_kernel, mod, "redist_scale_pull"), "cuModuleGetFunction");
    *ops = &cuda_ops;
    return REDIST_SUCCESS;
#endif
}
