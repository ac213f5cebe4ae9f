"""The Direct3D adapters (GPUs) DirectML can run on, listed through DXGI (Windows only).

A PC often has two: an integrated GPU and a discrete one. ONNX Runtime's
DirectML provider takes an adapter by its index in DXGI's `EnumAdapters1`
order (the `device_id` option); without that option it looks the adapter up
through `dxcore.dll`, which older Windows versions (and Wine) lack, and then
quietly runs on the CPU. So Tingji lists the adapters itself, in DXGI's
high-performance order (`IDXGIFactory6::EnumAdapterByGpuPreference`: a
discrete GPU before an integrated one), and always passes the index.

Software adapters (Microsoft Basic Render Driver, WARP) are offered only when
there is nothing else: DirectML on them is slower than the CPU provider.

No new dependency: the COM calls go through ctypes, by vtable slot.
"""

from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass

# DXGI_ADAPTER_FLAG_SOFTWARE: the adapter is a software rasteriser.
_FLAG_SOFTWARE = 2
_HIGH_PERFORMANCE = 1  # DXGI_GPU_PREFERENCE_HIGH_PERFORMANCE
_NOT_FOUND = 0x887A0002  # DXGI_ERROR_NOT_FOUND: past the last adapter
_MICROSOFT_VENDOR, _BASIC_RENDER_DEVICE = 0x1414, 0x8C  # Microsoft Basic Render Driver (WARP)

# vtable slots (IUnknown 0-2, IDXGIObject 3-6, IDXGIFactory 7-11, IDXGIFactory1 12-13, ...)
_RELEASE = 2
_QUERY_INTERFACE = 0
_ENUM_ADAPTERS1 = 12
_ENUM_BY_PREFERENCE = 29  # IDXGIFactory6
_GET_DESC1 = 10  # IDXGIAdapter1


@dataclass(frozen=True)
class Adapter:
    """One DXGI adapter.

    `device_id` is its index in DXGI's `EnumAdapters1` order: what ONNX Runtime's
    DirectML provider takes. `rank` is its place in the high-performance order
    (0 first).
    """

    device_id: int
    rank: int
    name: str
    vendor_id: int
    device: int
    dedicated_mb: int
    shared_mb: int
    software: bool
    luid: tuple[int, int]

    def label(self) -> str:
        """How the adapter is shown to people: its description, marked when it is a software one."""
        return f"{self.name} (software)" if self.software else self.name


class AdaptersUnavailable(Exception):
    """DXGI cannot list adapters here (not Windows, no dxgi.dll, no factory: e.g. no display)."""


def list_adapters() -> list[Adapter]:
    """Every adapter DXGI lists, in high-performance order; raises AdaptersUnavailable."""
    if sys.platform != "win32":
        raise AdaptersUnavailable("DirectX is Windows only")
    return _enumerate()


def d3d12_problem(adapter: Adapter) -> str | None:
    """Why Direct3D 12 (which DirectML runs on) cannot open `adapter`, or None when it can.

    D3D12CreateDevice with no output pointer only tests that a device could be
    made, so this costs no device.
    """
    if sys.platform != "win32":
        return "DirectX is Windows only"
    return _d3d12_problem(adapter)


def by_preference(adapters: list[Adapter]) -> list[Adapter]:
    """The order to try them in when none was asked for: hardware adapters in DXGI's high-performance
    order, then software ones (DirectML on those is slower than the CPU, so only when nothing else is)."""
    return sorted(adapters, key=lambda a: (a.software, a.rank))


def find(adapters: list[Adapter], wanted: str) -> Adapter | None:
    """The adapter `wanted` names: its place in the high-performance order (`0` is the default GPU), its
    DXGI index written `#N`, or a part of its name (case-insensitive); None when none matches."""
    wanted = wanted.strip()
    if wanted.isdigit():
        return next((a for a in adapters if a.rank == int(wanted)), None)
    if wanted.startswith("#") and wanted[1:].isdigit():
        return next((a for a in adapters if a.device_id == int(wanted[1:])), None)
    key = wanted.casefold()
    return next((a for a in adapters if key and key in a.name.casefold()), None)


# -- DXGI through ctypes ------------------------------------------------------------------------


class _Guid(ctypes.Structure):
    _fields_ = [("d1", ctypes.c_uint32), ("d2", ctypes.c_uint16), ("d3", ctypes.c_uint16), ("d4", ctypes.c_ubyte * 8)]

    @classmethod
    def parse(cls, text: str) -> _Guid:
        a, b, c, d, e = text.split("-")
        tail = bytes.fromhex(d + e)
        return cls(int(a, 16), int(b, 16), int(c, 16), (ctypes.c_ubyte * 8)(*tail))


class _Desc1(ctypes.Structure):
    """DXGI_ADAPTER_DESC1."""

    _fields_ = [
        ("Description", ctypes.c_wchar * 128),
        ("VendorId", ctypes.c_uint),
        ("DeviceId", ctypes.c_uint),
        ("SubSysId", ctypes.c_uint),
        ("Revision", ctypes.c_uint),
        ("DedicatedVideoMemory", ctypes.c_size_t),
        ("DedicatedSystemMemory", ctypes.c_size_t),
        ("SharedSystemMemory", ctypes.c_size_t),
        ("LuidLow", ctypes.c_uint32),
        ("LuidHigh", ctypes.c_int32),
        ("Flags", ctypes.c_uint),
    ]


_IID_FACTORY1 = "770aae78-f26f-4dba-a829-253c83d1b387"
_IID_FACTORY6 = "c1b6694f-ff09-44a9-b03c-77900a0a1d17"
_IID_ADAPTER1 = "29038f61-3839-4626-91fd-086879011a05"
_IID_D3D12_DEVICE = "189819f1-1db6-4b57-be54-1821339b85f7"
_FEATURE_LEVEL_11_0 = 0xB000  # the least DirectML takes on a GPU
_HRESULTS = {
    0x887A0001: "DXGI_ERROR_INVALID_CALL",
    0x887A0002: "DXGI_ERROR_NOT_FOUND",
    0x887A0004: "DXGI_ERROR_UNSUPPORTED",
    0x887A0005: "DXGI_ERROR_DEVICE_REMOVED",
    0x887A0007: "DXGI_ERROR_DEVICE_RESET",
    0x80004001: "E_NOTIMPL",
    0x80004005: "E_FAIL",
    0x80070057: "E_INVALIDARG",
    0x8007000E: "E_OUTOFMEMORY",
}


def _hresult(hr: int) -> str:
    name = _HRESULTS.get(hr)
    return f"0x{hr:08X} {name}" if name else f"0x{hr:08X}"


def _method(obj: ctypes.c_void_p, slot: int, *argtypes):
    vtable = ctypes.cast(obj, ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p))).contents
    prototype = ctypes.WINFUNCTYPE(ctypes.c_long, ctypes.c_void_p, *argtypes)
    return lambda *args: prototype(vtable[slot])(obj, *args) & 0xFFFFFFFF


def _release(obj: ctypes.c_void_p) -> None:
    if obj:
        vtable = ctypes.cast(obj, ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p))).contents
        ctypes.WINFUNCTYPE(ctypes.c_ulong, ctypes.c_void_p)(vtable[_RELEASE])(obj)


def _describe(adapter: ctypes.c_void_p) -> _Desc1:
    desc = _Desc1()
    hr = _method(adapter, _GET_DESC1, ctypes.POINTER(_Desc1))(ctypes.byref(desc))
    if hr & 0x80000000:
        raise AdaptersUnavailable(f"IDXGIAdapter1::GetDesc1 failed: {_hresult(hr)}")
    return desc


def _walk(enum) -> list[_Desc1]:
    """Descriptions of adapters 0, 1, ... from `enum(index, &adapter)` until DXGI says there are no more."""
    found = []
    for index in range(64):
        adapter = ctypes.c_void_p()
        hr = enum(index, ctypes.byref(adapter))
        if hr == _NOT_FOUND:
            break
        if hr & 0x80000000:
            raise AdaptersUnavailable(f"listing adapters failed: {_hresult(hr)}")
        try:
            found.append(_describe(adapter))
        finally:
            _release(adapter)
    return found


def _factory() -> tuple[ctypes.WinDLL, ctypes.c_void_p]:
    try:
        dxgi = ctypes.WinDLL("dxgi.dll")
    except OSError as exc:
        raise AdaptersUnavailable(f"dxgi.dll cannot be loaded: {exc}") from None
    create = dxgi.CreateDXGIFactory1
    create.restype = ctypes.c_long
    create.argtypes = [ctypes.POINTER(_Guid), ctypes.POINTER(ctypes.c_void_p)]
    factory = ctypes.c_void_p()
    hr = create(ctypes.byref(_Guid.parse(_IID_FACTORY1)), ctypes.byref(factory)) & 0xFFFFFFFF
    if hr & 0x80000000 or not factory:
        raise AdaptersUnavailable(f"DXGI cannot create a factory: {_hresult(hr)}, no display?")
    return dxgi, factory


def _enumerate() -> list[Adapter]:
    _, factory = _factory()
    try:
        listed = _walk(_method(factory, _ENUM_ADAPTERS1, ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p)))
        order = _preference_order(factory)
    finally:
        _release(factory)
    luids = [(d.LuidLow, d.LuidHigh) for d in listed]
    ranked = [luids.index(luid) for luid in order if luid in luids]
    ranked += [i for i in range(len(listed)) if i not in ranked]  # any the preference order left out
    return [_adapter(listed[i], i, rank) for rank, i in enumerate(ranked)]


def _d3d12_problem(adapter: Adapter) -> str | None:
    try:
        d3d12 = ctypes.WinDLL("d3d12.dll")
    except OSError as exc:
        return f"d3d12.dll cannot be loaded: {exc}"
    try:
        _, factory = _factory()
    except AdaptersUnavailable as exc:
        return str(exc)
    handle = ctypes.c_void_p()
    try:
        enum = _method(factory, _ENUM_ADAPTERS1, ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p))
        hr = enum(adapter.device_id, ctypes.byref(handle))
        if hr & 0x80000000:
            return f"the adapter is gone: {_hresult(hr)}"
        create = d3d12.D3D12CreateDevice
        create.restype = ctypes.c_long
        create.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(_Guid), ctypes.c_void_p]
        hr = create(handle, _FEATURE_LEVEL_11_0, ctypes.byref(_Guid.parse(_IID_D3D12_DEVICE)), None) & 0xFFFFFFFF
    finally:
        _release(handle)
        _release(factory)
    return f"Direct3D 12 cannot open it: {_hresult(hr)}" if hr & 0x80000000 else None


def _preference_order(factory: ctypes.c_void_p) -> list[tuple[int, int]]:
    """LUIDs in high-performance order; [] when the factory has no IDXGIFactory6 (before Windows 10 1803)."""
    factory6 = ctypes.c_void_p()
    query = _method(factory, _QUERY_INTERFACE, ctypes.POINTER(_Guid), ctypes.POINTER(ctypes.c_void_p))
    if query(ctypes.byref(_Guid.parse(_IID_FACTORY6)), ctypes.byref(factory6)) & 0x80000000 or not factory6:
        return []
    try:
        by_preference = _method(
            factory6,
            _ENUM_BY_PREFERENCE,
            ctypes.c_uint,
            ctypes.c_int,
            ctypes.POINTER(_Guid),
            ctypes.POINTER(ctypes.c_void_p),
        )
        iid = _Guid.parse(_IID_ADAPTER1)
        found = _walk(lambda index, out: by_preference(index, _HIGH_PERFORMANCE, ctypes.byref(iid), out))
    finally:
        _release(factory6)
    return [(d.LuidLow, d.LuidHigh) for d in found]


def _adapter(desc: _Desc1, device_id: int, rank: int) -> Adapter:
    software = bool(desc.Flags & _FLAG_SOFTWARE) or (desc.VendorId, desc.DeviceId) == (
        _MICROSOFT_VENDOR,
        _BASIC_RENDER_DEVICE,
    )
    return Adapter(
        device_id=device_id,
        rank=rank,
        name=desc.Description.strip() or f"adapter {device_id}",
        vendor_id=desc.VendorId,
        device=desc.DeviceId,
        dedicated_mb=desc.DedicatedVideoMemory // 2**20,
        shared_mb=desc.SharedSystemMemory // 2**20,
        software=software,
        luid=(desc.LuidLow, desc.LuidHigh),
    )
