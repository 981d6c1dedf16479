# SPDX-License-Identifier: MIT
"""ctypes bindings for gpumat built as a shared library (`make python` ->
build/libgpumat.so): images as gm_mat, DLPack in and out (anything with
__dlpack__: torch, CuPy, JAX, numpy), __cuda_array_interface__ out, and the
operations examples/python/roundtrip.py uses. Nothing is copied: every
Image views memory that either gpumat or the producer owns."""
import ctypes as C

HWC, CHW = 0, 1
HOST, PINNED, DEVICE = 0, 1, 2
U8, S8, U16, S16, S32, F32, F64, F16, BF16 = range(9)
_DL_DEVICE_TYPES = {HOST: 1, DEVICE: 2, PINNED: 3}  # kDLCPU, kDLCUDA, kDLCUDAHost


class Mat(C.Structure):
    _fields_ = [("data", C.c_void_p), ("width", C.c_int64), ("height", C.c_int64), ("channels", C.c_int32),
                ("batch", C.c_int32), ("dtype", C.c_int), ("layout", C.c_int), ("pitch", C.c_int64),
                ("plane_pitch", C.c_int64), ("batch_pitch", C.c_int64), ("where", C.c_int),
                ("device", C.c_int32), ("owned", C.c_void_p)]


class CudaArrayInterface(C.Structure):  # gm_cai
    _fields_ = [("ndim", C.c_int32), ("shape", C.c_int64 * 4), ("strides", C.c_int64 * 4),
                ("typestr", C.c_char * 4), ("data", C.c_size_t), ("read_only", C.c_int32), ("version", C.c_int32)]


class GpumatError(RuntimeError):
    pass


_py = C.pythonapi
_py.PyCapsule_New.restype = C.py_object
_py.PyCapsule_New.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]
_py.PyCapsule_GetPointer.restype = C.c_void_p
_py.PyCapsule_GetPointer.argtypes = [C.py_object, C.c_char_p]
_py.PyCapsule_IsValid.restype = C.c_int
_py.PyCapsule_IsValid.argtypes = [C.py_object, C.c_char_p]
_LEGACY, _VERSIONED = b"dltensor", b"dltensor_versioned"
_DELETER = C.CFUNCTYPE(None, C.c_void_p)


class _ManagedHead(C.Structure):
    """Where each managed struct keeps its deleter: legacy after the 48-byte
    DLTensor, versioned after the 8-byte version and manager_ctx."""
    _fields_ = [("ptr", C.c_void_p)]


def _deleter_of(ptr, versioned):
    offset = 16 if versioned else 56
    return _DELETER(_ManagedHead.from_address(ptr + offset).ptr)


# The destructor sees a capsule being freed: raw pointers, no new references.
_raw_is_valid = C.PYFUNCTYPE(C.c_int, C.c_void_p, C.c_char_p)(("PyCapsule_IsValid", _py))
_raw_get_pointer = C.PYFUNCTYPE(C.c_void_p, C.c_void_p, C.c_char_p)(("PyCapsule_GetPointer", _py))


@C.CFUNCTYPE(None, C.c_void_p)
def _capsule_destructor(capsule):
    """A capsule nobody consumed still owns its tensor: call the deleter.
    (Consumers rename the capsule to used_dltensor*, and then own it.)"""
    for name, versioned in ((_LEGACY, False), (_VERSIONED, True)):
        if _raw_is_valid(capsule, name):
            ptr = _raw_get_pointer(capsule, name)
            _deleter_of(ptr, versioned)(ptr)


class Image:
    """A gm_mat and whatever keeps its memory alive (a DLPack capsule, or
    nothing when gpumat allocated it; then free() releases it)."""

    def __init__(self, lib, mat, keep=None):
        self.lib, self.mat, self._keep = lib, mat, keep

    @property
    def data(self):
        return self.mat.data

    def free(self):
        self.lib.dll.gm_free(C.byref(self.mat))


class _Exporter:
    """What torch.from_dlpack / cupy.from_dlpack take: __dlpack__ gives a
    versioned capsule when the consumer asks for DLPack 1.x, else legacy."""

    def __init__(self, lib, image, move):
        self.lib, self.image, self.move = lib, image, move

    def __dlpack_device__(self):
        return (_DL_DEVICE_TYPES[self.image.mat.where], self.image.mat.device)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if self.image.mat.where == DEVICE:
            self.lib.sync()  # gpumat's work is on the default stream; the consumer may use another
        flags = 2 if self.move else 0  # GM_DL_EXPORT_MOVE
        out = C.c_void_p()
        versioned = bool(max_version) and max_version[0] >= 1
        fn = self.lib.dll.gm_to_dlpack if versioned else self.lib.dll.gm_to_dlpack_legacy
        self.lib.check(fn(C.byref(self.image.mat), flags, C.byref(out)))
        return _py.PyCapsule_New(out.value, _VERSIONED if versioned else _LEGACY,
                                 C.cast(_capsule_destructor, C.c_void_p))


class _CudaArray:
    """An object CuPy (cupy.asarray), Numba and others accept through
    __cuda_array_interface__."""

    def __init__(self, image, cai):
        self._image = image  # the memory must outlive the consumer's view
        self.__cuda_array_interface__ = {
            "shape": tuple(cai.shape[:cai.ndim]), "strides": tuple(cai.strides[:cai.ndim]),
            "typestr": cai.typestr.decode(), "data": (cai.data, bool(cai.read_only)), "version": cai.version}


class Library:
    def __init__(self, path):
        d = self.dll = C.CDLL(path)
        d.gm_last_error.restype = C.c_char_p
        d.gm_status_string.restype = C.c_char_p
        d.gm_status_string.argtypes = [C.c_int]
        d.gm_sync.argtypes = [C.c_void_p]
        d.gm_free.restype = None
        d.gm_alloc.argtypes = [C.POINTER(Mat), C.c_int64, C.c_int64, C.c_int, C.c_int, C.c_int]
        d.gm_alloc_host.argtypes = [C.POINTER(Mat), C.c_int64, C.c_int64, C.c_int, C.c_int, C.c_int, C.c_int]
        d.gm_from_dlpack.argtypes = [C.POINTER(Mat), C.c_void_p, C.c_int]
        d.gm_from_dlpack_versioned.argtypes = [C.POINTER(Mat), C.c_void_p, C.c_int, C.c_int]
        d.gm_to_dlpack.argtypes = d.gm_to_dlpack_legacy.argtypes = [C.POINTER(Mat), C.c_uint, C.POINTER(C.c_void_p)]
        d.gm_cai_describe.argtypes = [C.POINTER(Mat), C.c_int, C.POINTER(CudaArrayInterface)]
        d.gm_convert.argtypes = [C.POINTER(Mat), C.POINTER(Mat), C.c_double, C.c_double, C.c_void_p]
        d.gm_blob_from_image.argtypes = [C.POINTER(Mat), C.POINTER(Mat), C.c_double, C.c_double * 4,
                                         C.c_double * 4, C.c_int, C.c_void_p]

    def check(self, status):
        if status:
            raise GpumatError("%s: %s" % (self.dll.gm_status_string(status).decode(),
                                          self.dll.gm_last_error().decode()))

    def sync(self):
        self.check(self.dll.gm_sync(None))

    def alloc(self, width, height, dtype, channels, layout):
        m = Mat()
        self.check(self.dll.gm_alloc(C.byref(m), width, height, dtype, channels, layout))
        return Image(self, m)

    def alloc_host(self, width, height, dtype, channels, layout, pinned=False):
        """Host memory: pageable (numpy can view it through DLPack), or
        pinned when pinned is true (needs the driver)."""
        m = Mat()
        self.check(self.dll.gm_alloc_host(C.byref(m), width, height, dtype, channels, layout, int(pinned)))
        return Image(self, m)

    def from_dlpack(self, producer, order, writable=True):
        """Views producer's memory (zero-copy). order: HWC if its shape is
        (H, W, C) / (N, H, W, C), CHW if (C, H, W) / (N, C, H, W). Asks for a
        DLPack 1.x capsule first, the legacy one from older producers."""
        try:
            capsule = producer.__dlpack__(max_version=(1, 0))
        except TypeError:
            capsule = producer.__dlpack__()
        m = Mat()
        if _py.PyCapsule_IsValid(capsule, _VERSIONED):
            ptr = _py.PyCapsule_GetPointer(capsule, _VERSIONED)
            self.check(self.dll.gm_from_dlpack_versioned(C.byref(m), ptr, order, int(writable)))
        else:  # a legacy DLManagedTensor starts with its DLTensor
            self.check(self.dll.gm_from_dlpack(C.byref(m), _py.PyCapsule_GetPointer(capsule, _LEGACY), order))
        return Image(self, m, keep=capsule)  # the capsule's destructor calls the producer's deleter

    def exporter(self, image, move=False):
        """For torch.from_dlpack / cupy.from_dlpack. move: the consumer's
        tensor takes over gpumat's allocation and frees it."""
        return _Exporter(self, image, move)

    def cuda_array(self, image, read_only=False):
        cai = CudaArrayInterface()
        self.check(self.dll.gm_cai_describe(C.byref(image.mat), int(read_only), C.byref(cai)))
        return _CudaArray(image, cai)

    def convert(self, src, dst, alpha=1.0, beta=0.0):
        self.check(self.dll.gm_convert(C.byref(src.mat), C.byref(dst.mat), alpha, beta, None))

    def blob_from_image(self, src, dst, scale, mean, std, swap_rb):
        four = C.c_double * 4
        self.check(self.dll.gm_blob_from_image(C.byref(src.mat), C.byref(dst.mat), scale, four(*mean), four(*std),
                                               int(swap_rb), None))
