"""Loading of libtessel and the ctypes prototypes of its public API.

Every function of ``include/tessel.h`` is declared in :data:`PROTOTYPES`
with its argument types and its result type.
"""

import ctypes
import ctypes.util
import os
from typing import Any, Iterator, List, Optional

from . import _config

__all__ = ["lib", "PROTOTYPES", "PROGRESS_CB", "PROGRESS_FN", "ENTRY_CB",
           "EXPLORE_FN", "REQUIRED_MAJOR"]

#: Major version of libtessel these bindings are written for.
REQUIRED_MAJOR = 1

c_int_p = ctypes.POINTER(ctypes.c_int)
c_int64_p = ctypes.POINTER(ctypes.c_int64)
c_double_p = ctypes.POINTER(ctypes.c_double)
c_size_t = ctypes.c_size_t
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_void_pp = ctypes.POINTER(ctypes.c_void_p)
c_char_pp = ctypes.POINTER(ctypes.c_char_p)
c_int = ctypes.c_int
c_int64 = ctypes.c_int64
c_uint64 = ctypes.c_uint64
c_double = ctypes.c_double


class _Opaque(ctypes.c_void_p):
    """A pointer to one opaque libtessel type.

    As an argument type it accepts only a handle of its own type (an
    instance, or an object whose ``_ctype`` is this class and whose
    ``_as_parameter_`` gives such an instance) or None (NULL): never an
    int, a str or bytes, nor a handle of another type, which c_void_p
    would all pass on to C.
    """

    #: The C struct name (tessel_graph, ...).
    c_name = ""

    @classmethod
    def from_param(cls, obj: Any) -> Any:
        if obj is None or type(obj) is cls:
            return obj
        if getattr(type(obj), "_ctype", None) is cls:
            param = obj._as_parameter_
            if param is None or type(param) is cls:
                return param
        raise TypeError("expected a %s handle, not %s"
                        % (cls.c_name, type(obj).__name__))


def _opaque(c_name: str) -> Any:
    return type(c_name + "_p", (_Opaque,), {"c_name": c_name})


graph_p = _opaque("tessel_graph")
options_p = _opaque("tessel_options")
schedule_p = _opaque("tessel_schedule")
iter_p = _opaque("tessel_iter")
entry_p = _opaque("tessel_entry")
action_iter_p = _opaque("tessel_action_iter")
action_p = _opaque("tessel_action")
simulation_p = _opaque("tessel_simulation")
progress_p = _opaque("tessel_progress")
model_p = _opaque("tessel_model")
explore_p = _opaque("tessel_explore")
model_pp = ctypes.POINTER(model_p)
explore_pp = ctypes.POINTER(explore_p)
graph_pp = ctypes.POINTER(graph_p)
options_pp = ctypes.POINTER(options_p)
schedule_pp = ctypes.POINTER(schedule_p)
iter_pp = ctypes.POINTER(iter_p)
entry_pp = ctypes.POINTER(entry_p)
action_iter_pp = ctypes.POINTER(action_iter_p)
action_pp = ctypes.POINTER(action_p)
simulation_pp = ctypes.POINTER(simulation_p)

#: int (*)(int64_t period, int64_t makespan, int64_t lower_bound,
#:         int period_proven, void *payload)
PROGRESS_CB = ctypes.CFUNCTYPE(c_int, c_int64, c_int64, c_int64, c_int,
                               c_void_p)
#: int (*)(const tessel_entry *entry, void *payload)
ENTRY_CB = ctypes.CFUNCTYPE(c_int, entry_p, c_void_p)
#: int (*)(const tessel_progress *p, void *payload)
PROGRESS_FN = ctypes.CFUNCTYPE(c_int, progress_p, c_void_p)
#: int (*)(void *payload, const char *data, size_t length); the piece is
#: followed by a NUL in the library's buffer, so c_char_p reads it whole
WRITE_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_char_p, c_size_t)
#: int (*)(const char *family, double time, int64_t work,
#:         const char *reason, size_t done, size_t total, void *payload)
EXPLORE_FN = ctypes.CFUNCTYPE(c_int, c_char_p, c_double, c_int64, c_char_p,
                              c_size_t, c_size_t, c_void_p)

# Each opaque handle has its own pointer type (above); "T **out"
# parameters are POINTER of it. Text returned as "new, release with
# tessel_free" is received into a c_void_p (never c_char_p, which would
# lose the pointer). Enumerations are int. tests/test_tessel.py compares
# every entry with the declaration in include/tessel.h.
#: name -> (restype, argtypes)
PROTOTYPES = {
    "tessel_version": (c_char_p, []),
    "tessel_version_number": (c_int, []),
    "tessel_error_last": (c_char_p, []),
    "tessel_error_last_code": (c_int, []),
    "tessel_error_clear": (None, []),
    "tessel_strerror": (c_char_p, [c_int]),
    "tessel_free": (None, [c_void_p]),
    "tessel_graph_new": (c_int, [graph_pp, c_int]),
    "tessel_graph_free": (None, [graph_p]),
    "tessel_graph_dup": (c_int, [graph_pp, graph_p]),
    "tessel_graph_add_block": (c_int, [c_int_p, graph_p, c_char_p, c_int,
                                       c_int, c_int]),
    "tessel_graph_place": (c_int, [graph_p, c_int, c_int_p, c_size_t]),
    "tessel_graph_add_dep": (c_int, [graph_p, c_int, c_int]),
    "tessel_graph_add_dep_latency": (c_int, [graph_p, c_int, c_int, c_int]),
    "tessel_graph_set_latency": (c_int, [graph_p, c_int]),
    "tessel_graph_block_dep_latency": (c_int, [c_int64_p, c_int_p, graph_p,
                                               c_int, c_size_t]),
    "tessel_graph_set_step": (c_int, [graph_p, c_double]),
    "tessel_graph_step": (c_int, [c_double_p, graph_p]),
    "tessel_graph_set_unit": (c_int, [graph_p, c_char_p]),
    "tessel_graph_unit": (c_int, [c_char_pp, graph_p]),
    "tessel_graph_set_block_duration": (c_int, [graph_p, c_int, c_double]),
    "tessel_graph_block_duration": (c_int, [c_double_p, c_int_p, graph_p,
                                            c_int]),
    "tessel_graph_set_latency_time": (c_int, [graph_p, c_double]),
    "tessel_graph_latency_time": (c_int, [c_double_p, graph_p]),
    "tessel_graph_add_dep_latency_time": (c_int, [graph_p, c_int, c_int,
                                                  c_double]),
    "tessel_graph_block_dep_latency_time": (c_int, [c_double_p, c_int_p,
                                                    graph_p, c_int, c_size_t]),
    "tessel_pick_step": (c_int, [c_double_p, c_double_p, c_size_t]),
    "tessel_graph_set_stage": (c_int, [graph_p, c_int, c_int]),
    "tessel_graph_set_memory_limit": (c_int, [graph_p, c_int, c_int64]),
    "tessel_graph_validate": (c_int, [graph_p]),
    "tessel_graph_find": (c_int, [c_int_p, graph_p, c_char_p]),
    "tessel_graph_get": (c_int, [c_int64_p, graph_p, c_int]),
    "tessel_graph_block_get": (c_int, [c_int64_p, graph_p, c_int, c_int]),
    "tessel_graph_block_name": (c_int, [c_char_pp, graph_p, c_int]),
    "tessel_graph_block_device": (c_int, [c_int_p, graph_p, c_int, c_size_t]),
    "tessel_graph_block_dep": (c_int, [c_int_p, graph_p, c_int, c_size_t]),
    "tessel_graph_memory_limit": (c_int, [c_int64_p, graph_p, c_int]),
    "tessel_graph_lower_bound": (c_int, [c_int64_p, graph_p, c_int64]),
    "tessel_preset": (c_int, [graph_pp, c_char_p, c_int, c_int, c_int64]),
    "tessel_preset_count": (c_size_t, []),
    "tessel_preset_info": (c_int, [c_char_pp, c_char_pp, c_size_t]),
    "tessel_graph_from_json": (c_int, [graph_pp, c_char_p, c_size_t]),
    "tessel_graph_from_file": (c_int, [graph_pp, c_char_p]),
    "tessel_graph_to_json": (c_int, [c_void_pp, graph_p]),
    "tessel_options_new": (c_int, [options_pp]),
    "tessel_options_free": (None, [options_p]),
    "tessel_options_set": (c_int, [options_p, c_int, c_int64]),
    "tessel_options_get": (c_int, [c_int64_p, options_p, c_int]),
    "tessel_options_bounds": (c_int, [c_int64_p, c_int64_p, c_int]),
    "tessel_options_set_progress": (c_int, [options_p, PROGRESS_CB, c_void_p]),
    "tessel_options_set_progress_fn": (c_int, [options_p, PROGRESS_FN, c_void_p]),
    "tessel_progress_get": (c_int, [c_int64_p, progress_p, c_int]),
    "tessel_progress_phase": (c_int, [c_char_pp, progress_p]),
    "tessel_options_cancel": (c_int, [options_p]),
    "tessel_options_clear_cancel": (c_int, [options_p]),
    "tessel_search": (c_int, [schedule_pp, graph_p, options_p]),
    "tessel_search_sweep": (c_int, [schedule_pp, graph_p, c_int64_p, c_size_t,
                                    options_p]),
    "tessel_min_memory": (c_int, [c_int64_p, c_int_p, graph_p, c_int64,
                                  options_p]),
    "tessel_graph_min_memory": (c_int, [c_int64_p, c_int_p, graph_p, c_int64]),
    "tessel_schedule_new": (c_int, [schedule_pp, graph_p, c_int64]),
    "tessel_schedule_set_step": (c_int, [schedule_p, c_int, c_int64, c_int64]),
    "tessel_schedule_free": (None, [schedule_p]),
    "tessel_schedule_validate": (c_int, [schedule_p]),
    "tessel_schedule_get": (c_int, [c_int64_p, schedule_p, c_int]),
    "tessel_schedule_search_seconds": (c_int, [c_double_p, schedule_p]),
    "tessel_schedule_peak_memory": (c_int, [c_int64_p, schedule_p, c_int]),
    "tessel_schedule_graph": (c_int, [graph_pp, schedule_p]),
    "tessel_schedule_to_text": (c_int, [c_void_pp, schedule_p]),
    "tessel_schedule_to_json": (c_int, [c_void_pp, schedule_p]),
    "tessel_schedule_from_json": (c_int, [schedule_pp, c_char_p, c_size_t]),
    "tessel_schedule_from_file": (c_int, [schedule_pp, c_char_p]),
    "tessel_iter_new": (c_int, [iter_pp, schedule_p, c_int]),
    "tessel_iter_next": (c_int, [entry_pp, iter_p]),
    "tessel_iter_free": (None, [iter_p]),
    "tessel_schedule_foreach": (c_int, [schedule_p, c_int, ENTRY_CB,
                                        c_void_p]),
    "tessel_entry_get": (c_int, [c_int64_p, entry_p, c_int]),
    "tessel_entry_name": (c_int, [c_char_pp, entry_p]),
    "tessel_entry_device": (c_int, [c_int_p, entry_p, c_size_t]),
    "tessel_action_iter_new": (c_int, [action_iter_pp, schedule_p, c_int]),
    "tessel_action_iter_next": (c_int, [action_pp, action_iter_p]),
    "tessel_action_iter_free": (None, [action_iter_p]),
    "tessel_action_get": (c_int, [c_int64_p, action_p, c_int]),
    "tessel_schedule_to_actions_json": (c_int, [c_void_pp, schedule_p]),
    "tessel_schedule_to_torch_csv": (c_int, [c_void_pp, schedule_p, c_int]),
    "tessel_graph_check_torch": (c_int, [graph_p, c_int]),
    "tessel_schedule_to_trace_json": (c_int, [c_void_pp, schedule_p,
                                              c_double]),
    "tessel_schedule_to_svg": (c_int, [c_void_pp, schedule_p]),
    "tessel_schedule_write": (c_int, [schedule_p, c_int, c_double, WRITE_FN,
                                      c_void_p]),
    "tessel_simulate": (c_int, [simulation_pp, schedule_p, c_double_p,
                                c_size_t, c_double, c_double, c_uint64]),
    "tessel_simulation_free": (None, [simulation_p]),
    "tessel_simulation_get": (c_int, [c_double_p, simulation_p, c_int, c_int]),
    "tessel_durations_from_json": (c_int, [c_void_pp, graph_p, c_char_p,
                                           c_size_t]),
    "tessel_schedule_from_reference_json": (c_int, [schedule_pp, graph_p,
                                                    c_char_p, c_size_t]),
    "tessel_model_from_json": (c_int, [model_pp, c_char_p, c_size_t]),
    "tessel_model_from_file": (c_int, [model_pp, c_char_p]),
    "tessel_model_free": (None, [model_p]),
    "tessel_model_get": (c_int, [c_int64_p, model_p, c_int]),
    "tessel_model_units": (c_int, [c_char_pp, c_char_pp, model_p]),
    "tessel_explore_new": (c_int, [explore_pp, model_p]),
    "tessel_explore_free": (None, [explore_p]),
    "tessel_explore_set_progress": (c_int, [explore_p, EXPLORE_FN, c_void_p]),
    "tessel_explore_run": (c_int, [explore_p, options_p]),
    "tessel_explore_count": (c_int, [ctypes.POINTER(c_size_t), explore_p]),
    "tessel_explore_family": (c_int, [c_char_pp, explore_p, c_size_t]),
    "tessel_explore_reason": (c_int, [c_char_pp, explore_p, c_size_t]),
    "tessel_explore_get": (c_int, [c_double_p, explore_p, c_size_t, c_int]),
    "tessel_explore_device_memory": (c_int, [c_double_p, explore_p, c_size_t,
                                             c_int]),
    "tessel_explore_graph": (c_int, [graph_pp, explore_p, c_size_t]),
    "tessel_explore_schedule": (c_int, [schedule_pp, explore_p, c_size_t]),
    "tessel_explore_to_json": (c_int, [c_void_pp, explore_p, c_int]),
    "tessel_published_count": (c_size_t, []),
    "tessel_published_info": (c_int, [c_char_pp, c_char_pp, c_size_t]),
    "tessel_published": (c_int, [schedule_pp, c_char_p, c_int, c_int64,
                                 c_int, c_int, c_int, c_int, c_int]),
    "tessel_published_on": (c_int, [schedule_pp, graph_p, c_char_p,
                                    c_int64]),
    "tessel_graph_set_recompute": (c_int, [graph_p, c_int, c_int, c_int,
                                           c_int]),
    "tessel_graph_set_offload": (c_int, [graph_p, c_int, c_int, c_int,
                                         c_int]),
    "tessel_graph_block_recompute": (c_int, [c_int_p, c_int_p, c_int_p,
                                             graph_p, c_int]),
    "tessel_graph_block_offload": (c_int, [c_int_p, c_int_p, c_int_p,
                                           graph_p, c_int]),
    "tessel_schedule_set_choice": (c_int, [schedule_p, c_int, c_int64, c_int,
                                           c_int64, c_int64]),
    "tessel_choice_name": (c_char_p, [c_int]),
}


def _candidates() -> Iterator[str]:
    """Yield the library paths or names to try without TESSEL_LIBRARY (with
    it, that library alone, see _load), in order: the library installed
    with this package (its location is written into :mod:`tessel._config`
    by ``meson install`` or by ``pip install`` with ``--config-settings
    libtessel=PATH``), then the dynamic linker's."""
    if _config.LIBRARY:
        if _config.PACKAGE_DIR:
            # the same place relative to this package, which also holds in
            # a staged (DESTDIR) or moved installation
            here = os.path.dirname(os.path.abspath(__file__))
            beside = os.path.normpath(os.path.join(
                here, os.path.relpath(_config.LIBRARY, _config.PACKAGE_DIR)))
            if os.path.exists(beside):
                yield beside
        # (tried also when it is gone: the error then names it)
        yield _config.LIBRARY
    found = ctypes.util.find_library("tessel")
    if found:
        yield found
    # an installation pkg-config knows (a prefix outside the linker's path)
    libdir = _pkg_config_libdir()
    if libdir:
        yield os.path.join(libdir, "libtessel.so.1")
    yield "libtessel.so.1"


def _pkg_config_libdir() -> Optional[str]:
    """libtessel's libdir as pkg-config gives it, or None."""
    import shutil
    import subprocess
    tool = shutil.which("pkg-config")
    if not tool:
        return None
    try:
        out = subprocess.run([tool, "--variable=libdir", "libtessel"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.decode("utf-8", "replace").strip()
    return text if out.returncode == 0 and text else None


def _declare(handle: Any, name: str) -> None:
    """Set argtypes and restype of one function from PROTOTYPES."""
    restype, argtypes = PROTOTYPES[name]
    try:
        func = getattr(handle, name)
    except AttributeError:
        raise ImportError("tessel: libtessel lacks the function %s"
                          % name) from None
    func.restype = restype
    func.argtypes = argtypes


def _load() -> Any:
    """Load libtessel, check its major version and declare the prototypes."""
    errors: List[str] = []
    handle = None
    env = os.environ.get("TESSEL_LIBRARY")
    if env:
        # the library asked for, or none: never another one in its place
        try:
            handle = ctypes.CDLL(env)
        except OSError as exc:
            raise ImportError("tessel: cannot load the libtessel that "
                              "TESSEL_LIBRARY names: %s" % exc) from None
    for candidate in ([] if handle is not None else _candidates()):
        try:
            handle = ctypes.CDLL(candidate)
            break
        except OSError as exc:
            errors.append("%s: %s" % (candidate, exc))
    if handle is None:
        raise ImportError(
            "tessel: cannot load libtessel. Either install it (meson setup "
            "build && meson install -C build; a prefix outside the linker's "
            "path is found through pkg-config, or reinstall this package "
            "with pip install ./bindings/python --config-settings "
            "libtessel=PREFIX/lib/.../libtessel.so.1), or set TESSEL_LIBRARY "
            "to the path of libtessel.so.1. Tried: " + "; ".join(errors))
    for name in ("tessel_version", "tessel_version_number"):
        _declare(handle, name)
    number = handle.tessel_version_number()
    if number // 10000 != REQUIRED_MAJOR:
        raise ImportError(
            "tessel: these bindings need libtessel %d.x, but the loaded "
            "library is version %s" % (
                REQUIRED_MAJOR, handle.tessel_version().decode()))
    for name in PROTOTYPES:
        _declare(handle, name)
    return handle


lib = _load()
