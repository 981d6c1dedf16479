# SPDX-License-Identifier: MIT
"""Images: any array with DLPack, the CUDA array interface or numpy's array
interface described as a gm_mat without a copy, and gpumat.Image, a gm_mat
that exports all three."""
import ctypes
import weakref
from ctypes import byref

from . import _capi as C
from ._lib import Error, check, dll, fail

# numpy typestrs of gpumat's dtypes (bf16 has none), and DLPack's (code, bits)
TYPESTR = {C.GM_U8: "|u1", C.GM_S8: "|i1", C.GM_U16: "<u2", C.GM_S16: "<i2", C.GM_S32: "<i4", C.GM_F32: "<f4",
           C.GM_F64: "<f8", C.GM_F16: "<f2"}
_DL_OF_KIND = {"u": C.GM_DL_UINT, "i": C.GM_DL_INT, "f": C.GM_DL_FLOAT}
DTYPE_NAMES = {"u8": C.GM_U8, "uint8": C.GM_U8, "s8": C.GM_S8, "int8": C.GM_S8, "u16": C.GM_U16,
               "uint16": C.GM_U16, "s16": C.GM_S16, "int16": C.GM_S16, "s32": C.GM_S32, "int32": C.GM_S32,
               "f32": C.GM_F32, "float32": C.GM_F32, "f64": C.GM_F64, "float64": C.GM_F64, "f16": C.GM_F16,
               "float16": C.GM_F16, "bf16": C.GM_BF16, "bfloat16": C.GM_BF16}
LAYOUTS = {None: None, "HWC": C.GM_HWC, "CHW": C.GM_CHW, C.GM_HWC: C.GM_HWC, C.GM_CHW: C.GM_CHW}
_DL_DEVICE_OF = {C.GM_HOST: C.GM_DL_CPU, C.GM_PINNED: C.GM_DL_CUDA_HOST, C.GM_DEVICE: C.GM_DL_CUDA}

_py = ctypes.pythonapi
_py.PyCapsule_New.restype = ctypes.py_object
_py.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_py.PyCapsule_GetPointer.restype = ctypes.c_void_p
_py.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_py.PyCapsule_IsValid.restype = ctypes.c_int
_py.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_VERSIONED, _LEGACY = b"dltensor_versioned", b"dltensor"


def dtype_of(value, where="dtype"):
    """A gm_dtype from gpumat.F32, a name ("f32", "float32"), a numpy
    dtype or type, or a torch dtype."""
    if isinstance(value, int) and 0 <= value < C.GM_DTYPE_COUNT:
        return value
    name = getattr(value, "name", None) or getattr(value, "__name__", None) or str(value)
    found = DTYPE_NAMES.get(str(name).replace("torch.", "").lower())
    if found is None:
        fail(C.GM_ERR_TYPE, f"{where}: {value!r} is not a gpumat dtype")
    return found


class Image:
    """A gm_mat: memory gpumat allocated (freed with the object) or a view
    of somebody else's, kept alive by `owner`. Exports __dlpack__,
    __cuda_array_interface__ (device and pinned memory) and
    __array_interface__ (host memory), so numpy.asarray, torch.from_dlpack
    and cupy.asarray take it without a copy."""

    def __init__(self, mat, owner=None):
        self.mat, self.owner = mat, owner

    def __del__(self):
        if self.mat.owned and dll is not None:
            dll.gm_free(byref(self.mat))

    width = property(lambda self: self.mat.width)
    height = property(lambda self: self.mat.height)
    channels = property(lambda self: self.mat.channels)
    batch = property(lambda self: self.mat.batch)
    dtype = property(lambda self: self.mat.dtype)
    layout = property(lambda self: self.mat.layout)
    where = property(lambda self: self.mat.where)
    pitch = property(lambda self: self.mat.pitch)
    data = property(lambda self: self.mat.data or 0)

    def __repr__(self):
        return (f"gpumat.Image({self.width}x{self.height}, {self.channels} x "
                f"{dll.gm_dtype_name(self.dtype).decode()}, {'HWC' if self.layout == C.GM_HWC else 'CHW'}, "
                f"batch {self.batch}, {['host', 'pinned', 'device'][self.where]})")

    def _view(self, fn, *args):
        view = C.gm_mat()
        check(fn(byref(self.mat), byref(view), *args))
        return Image(view, self)

    def roi(self, x, y, width, height):
        """The rectangle of every channel and item (gm_roi)."""
        return self._view(dll.gm_roi, x, y, width, height)

    def plane(self, channel):
        """One channel of a planar image, as a 1-channel image (gm_plane)."""
        return self._view(dll.gm_plane, channel)

    def item(self, index):
        """One image of a batch (gm_item)."""
        return self._view(dll.gm_item, index)

    def _shape(self):
        """Shape and byte strides as gm_to_dlpack orders them."""
        out = ctypes.POINTER(C.gm_dl_managed)()
        check(dll.gm_to_dlpack_legacy(byref(self.mat), 0, byref(out)))
        t = out.contents.dl_tensor
        size = dll.gm_dtype_size(self.dtype)
        shape = tuple(t.shape[i] for i in range(t.ndim))
        strides = tuple(t.strides[i] * size for i in range(t.ndim))
        out.contents.deleter(out)
        return shape, strides

    def _interface(self, where):
        if self.dtype not in TYPESTR:
            fail(C.GM_ERR_TYPE, f"gpumat.Image.{where}: bf16 has no numpy typestr (export it by DLPack)")
        shape, strides = self._shape()
        return {"shape": shape, "strides": strides, "typestr": TYPESTR[self.dtype], "data": (self.data, False),
                "version": 3}

    @property
    def __array_interface__(self):
        if self.where == C.GM_DEVICE:
            raise AttributeError("gpumat.Image: device memory has no __array_interface__ (gpumat.copy it to host)")
        return self._interface("__array_interface__")

    @property
    def __cuda_array_interface__(self):
        """The CUDA array interface, its stream CUDA's legacy default one
        (1), where gpumat's default stream queues work: a consumer on
        another stream waits for it."""
        if self.where == C.GM_HOST:
            raise AttributeError("gpumat.Image: pageable host memory has no __cuda_array_interface__")
        return dict(self._interface("__cuda_array_interface__"), stream=1)

    def __dlpack_device__(self):
        return (_DL_DEVICE_OF[self.where], self.mat.device if self.where == C.GM_DEVICE else 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule viewing this image, versioned when the consumer
        takes DLPack 1.x. A consumer on CUDA's legacy default stream (1,
        torch's default) sees gpumat's work there in order; for any other
        stream gpumat's default stream is synchronised first. Results made on
        a stream of the caller's: gpumat.sync(that stream) before exporting."""
        if copy:
            raise BufferError("gpumat.Image.__dlpack__: copy=True is not offered (the export is a view)")
        if self.where != C.GM_HOST and stream not in (1, -1):
            check(dll.gm_sync(None))
        return _export(self, bool(max_version) and max_version[0] >= 1)


# An export's tensor keeps its image alive until the consumer calls the
# deleter; the deleter is gpumat's own, called after the image is let go.
_exports = {}


def _released(ptr):
    image, c_deleter = _exports.pop(ptr)
    c_deleter(ptr)


_DELETER_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_DELETER = _DELETER_TYPE(_released)


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    """A capsule nobody consumed still owns its tensor (consumers rename
    theirs to used_dltensor*, and then call the deleter themselves)."""
    for name, managed in ((_VERSIONED, C.gm_dl_managed_versioned), (_LEGACY, C.gm_dl_managed)):
        if _raw_is_valid(capsule, name):
            ptr = _raw_get_pointer(capsule, name)
            ctypes.cast(ptr, ctypes.POINTER(managed)).contents.deleter(ctypes.cast(ptr, ctypes.POINTER(managed)))


# The destructor runs while its capsule is being freed: raw pointers, no new references.
_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _py))
_raw_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _py))


def _export(image, versioned):
    managed = C.gm_dl_managed_versioned if versioned else C.gm_dl_managed
    out = ctypes.POINTER(managed)()
    check((dll.gm_to_dlpack if versioned else dll.gm_to_dlpack_legacy)(byref(image.mat), 0, byref(out)))
    ptr = ctypes.cast(out, ctypes.c_void_p).value
    slot = ctypes.c_void_p.from_address(ptr + managed.deleter.offset)
    _exports[ptr] = (image, _DELETER_TYPE(slot.value))
    slot.value = ctypes.cast(_DELETER, ctypes.c_void_p).value
    return _py.PyCapsule_New(ptr, _VERSIONED if versioned else _LEGACY, ctypes.cast(_capsule_destructor,
                                                                                     ctypes.c_void_p))


def stream_of(stream, fn="gpumat"):
    """A CUstream handle from None (the default stream), an int, a
    torch.cuda.Stream (.cuda_stream) or a CuPy stream (.ptr)."""
    if stream is None or isinstance(stream, int):
        return stream or None
    for attr in ("cuda_stream", "ptr"):
        if isinstance(getattr(stream, attr, None), int):
            return getattr(stream, attr) or None
    fail(C.GM_ERR_ARG, f"{fn}: stream is a {type(stream).__name__}, not an int, a torch.cuda.Stream or a CuPy stream")


class _Torch:
    """What gpumat reads of a torch tensor beyond DLPack: the stream torch
    works on, and what identifies the memory a tensor views."""

    @staticmethod
    def current_stream(t):
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # an int, without a Stream object
        return raw(t.get_device()) if raw else torch.cuda.current_stream(t.device).cuda_stream

    @staticmethod
    def key(t):
        return t.data_ptr(), tuple(t.shape), t.stride(), t.dtype


class _CuPy:
    @staticmethod
    def current_stream(a):
        import cupy
        return cupy.cuda.get_current_stream().ptr

    @staticmethod
    def key(a):
        return a.data.ptr, a.shape, a.strides, a.dtype


_FRAMEWORKS = {"torch": _Torch, "cupy": _CuPy}

# Device tensors of torch and CuPy viewed on the stream they work on: id ->
# (a weak reference to the tensor, its key, layout, writable, its gm_mat).
# A loop passes the same tensors every frame; their gm_mat is made once (a
# DLPack export costs torch 3 us, a wait for its stream 10 us more;
# bench/RESULTS.md). Each use gets an Image of its own holding the tensor:
# the entry holds neither the tensor nor its capsule (torch keeps a
# tensor's Python object alive while its capsule lives, so the weak
# reference would never die). Another stream than the producer's goes
# through __dlpack__ every time, so the producer makes it wait.
_views = {}


def _remember(obj, key, layout, writable, m):
    ident = id(obj)

    def forget(ref, views=_views):
        if ident in views and views[ident][0] is ref:
            del views[ident]

    try:
        _views[ident] = (weakref.ref(obj, forget), key, layout, writable, m)
    except TypeError:  # not weakly referable: not kept
        pass


def _producer(obj, stream, fn):
    """(torch or CuPy's adapter, the tensor's key, whether gpumat's stream
    is the producer's current one, gpumat's stream); adapter None for other
    producers or where the adapter fails."""
    ours = stream_of(stream, fn) or 0
    framework = _FRAMEWORKS.get(type(obj).__module__.split(".")[0])
    if framework is not None:
        try:
            return framework, framework.key(obj), framework.current_stream(obj) == ours, ours
        except Exception:  # an unusual build: the general way
            pass
    return None, None, False, ours


def _kept(obj, layout, writable, stream, fn):
    """The Image made of obj before, where it still views the same memory
    and gpumat works on obj's current stream; else None."""
    kept = _views.get(id(obj))
    if kept is None or kept[0]() is not obj:
        return None
    _, key, same, _ = _producer(obj, stream, fn)
    if same and key == kept[1] and layout == kept[2] and (kept[3] or not writable):
        return Image(kept[4], obj)
    return None


def _dlpack(obj, on_gpu, layout, writable, stream, fn, name):
    """An Image of a DLPack producer's memory. On the GPU the producer's
    __dlpack__(stream=) gets the stream gpumat will use, which it makes wait
    for its work (1: CUDA's legacy default stream), or -1 where that is its
    own current stream (torch, CuPy), which needs no wait."""
    _, key, same, ours = _producer(obj, stream, fn) if on_gpu else (None, None, False, 0)
    kwargs = {"stream": -1 if same else ours or 1} if on_gpu else {}
    try:
        capsule = obj.__dlpack__(max_version=(1, 0), **kwargs)
    except TypeError:
        capsule = obj.__dlpack__(**kwargs)
    m = C.gm_mat()
    if _py.PyCapsule_IsValid(capsule, _VERSIONED):
        ptr = ctypes.cast(_py.PyCapsule_GetPointer(capsule, _VERSIONED), ctypes.POINTER(C.gm_dl_managed_versioned))
        shape = ptr.contents.dl_tensor.shape[:ptr.contents.dl_tensor.ndim]
        check(dll.gm_from_dlpack_versioned(byref(m), ptr, _order(shape, layout, fn, name), int(writable)))
    else:
        ptr = ctypes.cast(_py.PyCapsule_GetPointer(capsule, _LEGACY), ctypes.POINTER(C.gm_dl_tensor))
        shape = ptr.contents.shape[:ptr.contents.ndim]
        check(dll.gm_from_dlpack(byref(m), ptr, _order(shape, layout, fn, name)))
    if same:  # the tensor itself keeps its memory; the capsule goes (see _views)
        _remember(obj, key, layout, writable, m)
        return Image(m, obj)
    return Image(m, (obj, capsule))


def _order(shape, layout, fn, name):
    """Which way a shape is ordered: layout when given, else (..., H, W, C)
    where the last size is a channel count (1-4), else (..., C, H, W)."""
    if layout not in LAYOUTS:
        fail(C.GM_ERR_ARG, f"{fn}: layout of {name} is {layout!r}, not 'HWC', 'CHW', gpumat.HWC or gpumat.CHW")
    if LAYOUTS[layout] is not None:
        return LAYOUTS[layout]
    if len(shape) == 2 or (len(shape) in (3, 4) and shape[-1] <= 4):
        return C.GM_HWC
    if len(shape) in (3, 4) and shape[-3] <= 4:
        return C.GM_CHW
    fail(C.GM_ERR_ARG, f"{fn}: {name} of shape {tuple(shape)} is neither (..., H, W, C) nor (..., C, H, W) with "
                       "1-4 channels: pass layout='HWC' or 'CHW'")


def _tensor(interface, device_type, fn, name):
    """A gm_dl_tensor (and its arrays) from a numpy or CUDA array interface."""
    typestr = interface["typestr"]
    kind, size = typestr[1], int(typestr[2:])
    if kind not in _DL_OF_KIND or typestr[0] == ">":
        fail(C.GM_ERR_TYPE, f"{fn}: {name} has elements {typestr!r}, which gpumat has not")
    shape = tuple(interface["shape"])
    strides = interface.get("strides")
    if strides is None:  # C-contiguous
        strides, step = [], size
        for n in reversed(shape):
            strides.insert(0, step)
            step *= n
    if any(s % size for s in strides):
        fail(C.GM_ERR_SIZE, f"{fn}: {name}'s strides {tuple(strides)} are not whole elements of {size} bytes")
    n = len(shape)
    t = C.gm_dl_tensor()
    t.data, t.ndim = interface["data"][0], n
    t.device.device_type = device_type
    t.dtype.code, t.dtype.bits, t.dtype.lanes = _DL_OF_KIND[kind], 8 * size, 1
    arrays = ((ctypes.c_int64 * max(n, 1))(*shape), (ctypes.c_int64 * max(n, 1))(*(s // size for s in strides)))
    t.shape = ctypes.cast(arrays[0], ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(arrays[1], ctypes.POINTER(ctypes.c_int64))
    return t, arrays


def _device_of(pointer):
    """The CUDA ordinal of device memory, asked of the driver by a wrap."""
    probe = C.gm_mat()
    check(dll.gm_wrap(byref(probe), pointer, 1, 1, C.GM_U8, 1, C.GM_HWC, 0, C.GM_DEVICE))
    return probe.device


def image(obj, layout=None, writable=False, stream=None, fn="gpumat.image", name="image"):
    """(see _describe) with gm_from_dlpack's refusals named by the caller's
    function and argument."""
    try:
        img = _describe(obj, layout, writable, stream, fn, name)
    except Error as e:
        if not e.message.startswith("gm_from_dlpack"):
            raise
        raise Error(e.status, f"{fn}: {name}: {e.message}") from None
    on = _stream_device(stream)
    if on is not None and img.where == C.GM_DEVICE and on != img.mat.device:
        fail(C.GM_ERR_ARG, f"{fn}: stream is on device {on} but {name} is on device {img.mat.device}")
    return img


def _stream_device(stream):
    """The device of a torch or CuPy stream object (None for an int: a
    CUstream does not say)."""
    device = getattr(stream, "device", None)
    index = getattr(device, "index", None) if device is not None else getattr(stream, "device_id", None)
    return index if isinstance(index, int) else None


def _describe(obj, layout, writable, stream, fn, name):
    """A gpumat.Image viewing obj's memory, nothing copied: a gpumat.Image,
    or anything with __dlpack__ (torch, CuPy, JAX, numpy),
    __cuda_array_interface__ (CuPy, Numba, PyNvVideoCodec) or
    __array_interface__ (numpy). layout: 'HWC' or 'CHW', how the shape is
    ordered where it is ambiguous (see _order); the strides decide the memory
    layout, so a channels_last torch tensor is an interleaved image."""
    if isinstance(obj, Image):
        return obj
    kept = _kept(obj, layout, writable, stream, fn) if _views else None
    if kept is not None:
        return kept
    device = getattr(obj, "__dlpack_device__", None)
    on_gpu = device is not None and device()[0] in (C.GM_DL_CUDA, C.GM_DL_CUDA_HOST)
    if hasattr(obj, "__dlpack__") and (on_gpu or not hasattr(obj, "__array_interface__")):
        return _dlpack(obj, on_gpu, layout, writable, stream, fn, name)
    for attr, device_type in (("__array_interface__", C.GM_DL_CPU), ("__cuda_array_interface__", C.GM_DL_CUDA)):
        interface = getattr(obj, attr, None)
        if interface is None:
            continue
        if writable and interface["data"][1]:
            fail(C.GM_ERR_ARG, f"{fn}: {name} is read-only")
        t, arrays = _tensor(interface, device_type, fn, name)
        m = C.gm_mat()
        if device_type == C.GM_DL_CUDA and t.data:
            t.device.device_id = _device_of(t.data)
            producer = interface.get("stream")
            if isinstance(producer, int) and (0 if producer == 1 else producer) != (stream_of(stream, fn) or 0):
                check(dll.gm_sync(producer))  # the producer's work on its own stream done first
        check(dll.gm_from_dlpack(byref(m), byref(t), _order(interface["shape"], layout, fn, name)))
        return Image(m, obj)
    fail(C.GM_ERR_ARG, f"{fn}: {name} is a {type(obj).__name__}, not an image (no __dlpack__, "
                       "__cuda_array_interface__ or __array_interface__)")


def alloc(width, height, dtype, channels=1, layout=C.GM_HWC, batch=1, where=C.GM_AUTO):
    """A new image (gm_alloc_desc): where GM_AUTO is the device when there is
    a GPU, else host memory; HOST, PINNED or DEVICE as asked."""
    d = C.gm_desc(width=width, height=height, channels=channels, batch=batch,
                  dtype=dtype_of(dtype, "gpumat.alloc: dtype"), layout=LAYOUTS.get(layout, layout))
    m = C.gm_mat()
    check(dll.gm_alloc_desc(byref(m), byref(d), where))
    return Image(m)


def wrap(data, width, height, dtype, channels=1, layout=C.GM_HWC, pitch=0, where=C.GM_DEVICE):
    """A view of memory at an address (gm_wrap): a cv2.cuda_GpuMat's
    cudaPtr() and step, a decoder's surface. The memory must outlive it."""
    m = C.gm_mat()
    check(dll.gm_wrap(byref(m), data, width, height, dtype_of(dtype, "gpumat.wrap: dtype"), channels,
                      LAYOUTS.get(layout, layout), pitch, where))
    return Image(m)
