// libtessel C++17 wrapper: header only, over the public C API of <tessel.h>.
//
// SPDX-License-Identifier: MIT
//
// - Handles (Graph, Options, Schedule, EntryIterator, ActionIterator) are
//   RAII and move-only; they release with the C _free functions.
// - A failing C call throws tessel::Error (a std::runtime_error) carrying the
//   error code and the library's message from tessel_error_last().
// - schedule.entries(device) and schedule.actions(device) are ranges for
//   range-for loops, yielding small structs copied from the C objects.
//   A range and its iterators share the ownership of the C schedule: they
//   stay valid when the Schedule they came from is moved, reassigned or
//   destroyed, and a temporary's range owns it
//   (for (auto &e : tessel::search(g).entries(0)) is safe). A schedule
//   with a live range or iterator cannot be changed (set_step, set_choice,
//   release throw tessel::Error).
// - A moved-from handle throws tessel::Error (TESSEL_EINVAL) on use.
// - Threads: a Graph may be used from several threads at once: each of
//   its functions holds the graph's lock for its call, and tessel::search
//   searches a copy made under it (the graph may change while the search
//   runs). Options refuse a change (set, set_progress) while a search
//   uses them, from any thread, with tessel::Error (TESSEL_EINVAL);
//   cancel and CancelToken work from any thread. A Schedule may be read
//   and changed (set_step, set_choice) from several threads at once: each
//   call holds the schedule's lock, shared to read, exclusive to change
//   (since 1.7.9); moving, assigning, release() and destroying it, like
//   those of any C++ object, need no other thread using that Schedule.
//   The stream of Schedule::write may read the schedule it writes; a
//   change of it (set_step, set_choice, release) throws tessel::Error
//   (TESSEL_EINVAL) there, and dropping the Schedule leaves the write
//   its schedule until it ends.
//   Ranges and iterators, as the standard containers' iterators, need the
//   caller's lock to be advanced from several threads at once.
// - Text given to C (names, paths, units) with a NUL character throws
//   tessel::Error (TESSEL_EINVAL): C would take it for the end.
// - Integer arguments are never converted silently (since 1.7.4): a
//   parameter of C type int, int64_t or size_t takes any integer type
//   whose value fits it, and throws tessel::Error (TESSEL_ERANGE) for one
//   that does not (g.add_block("f", Kind::Forward, int64_t(1) << 40, 1)
//   is refused, not cut to 0); a double, a float or a bool there does not
//   compile. A parameter of C type double takes any floating-point value
//   and an integer a double holds exactly; a larger integer (2^53 + 1)
//   throws tessel::Error (TESSEL_ERANGE) and a bool does not compile
//   (since 1.8.6); so does a long double a double does not hold exactly
//   (0.1L, 1e400L: TESSEL_ERANGE, since 1.8.8). A braced list of devices
//   (place(b, {0, 1})) or of times (pick_step({1.5, 3})) takes the same,
//   and {true} does not compile (since 1.8.8).
// - SearchOptions holds every option of tessel.h with the library's
//   defaults (those of the tessel command line), a progress callback
//   (std::function) and a CancelToken; its integer fields take integers
//   only, as parameters do, and its flags bools only (o.micro_batches =
//   7.9 and o.fast = 2 do not compile, since 1.7.9).
// - Memory-time alternatives (since 1.6): Graph::set_recompute and
//   Graph::set_offload declare them, Graph::recompute and Graph::offload
//   read them back (std::nullopt when not declared), a search chooses per
//   micro-batch (Entry::choice; SearchOptions::alternatives) and
//   Schedule::set_choice sets a choice by hand.
//
//     auto g = tessel::Graph::preset("mshape", 4, 6);
//     auto s = tessel::search(g, tessel::SearchOptions{16});
//     for (const auto &e : s.entries(0))
//         std::cout << e.block << ' ' << e.micro_batch << ' ' << e.start << '\n';
#ifndef TESSEL_HPP
#define TESSEL_HPP

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "tessel.hpp needs C++17 or later (e.g. -std=c++17)"
#endif
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__cpp_exceptions)
#error "tessel.hpp reports every failure as a tessel::Error exception: compile with exceptions (no -fno-exceptions), or use tessel.h"
#endif

#include <tessel.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessel {

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

class Error : public std::runtime_error {
public:
	Error(int code, const std::string &message)
		: std::runtime_error(message), code_(code) {}
	// A tessel_error_code (negative).
	int code() const noexcept { return code_; }

private:
	int code_;
};

namespace detail {

// Throw tessel::Error for a failed call; `what` names the operation.
inline void check(int rc, const char *what)
{
	if (rc == TESSEL_OK)
		return;
	const char *last = tessel_error_last();
	std::string detail = (last && *last) ? last : tessel_strerror(rc);
	std::string msg = what;
	size_t n = msg.size();
	// the library's message may name the function already
	if (detail.compare(0, n, msg) == 0 && detail.size() > n && detail[n] == ':')
		throw Error(rc, detail);
	msg += ": ";
	msg += detail;
	throw Error(rc, msg);
}

// An integer argument is taken as it is or refused (since 1.7.4): any
// integer type (and a plain enum) whose value fits the C parameter is
// passed on; a value that does not fit throws tessel::Error
// (TESSEL_ERANGE) naming the parameter, and bool, floating-point and other
// types do not compile, where C++ would convert them silently.
template <class U>
inline constexpr bool is_integer_arg_v =
	(std::is_integral_v<U> && !std::is_same_v<U, bool>) ||
	(std::is_enum_v<U> && std::is_convertible_v<U, long long>);

template <class... U>
using if_integers = std::enable_if_t<(is_integer_arg_v<std::decay_t<U>> && ...), int>;

template <class T, class U>
T exact(U value, const char *what)
{
	static_assert(is_integer_arg_v<U>, "an integer argument");
	using V = std::conditional_t<std::is_enum_v<U>, std::underlying_type<U>,
				     std::common_type<U>>;
	auto v = static_cast<typename V::type>(value);
	using W = decltype(v);
	bool fits;
	if constexpr (std::is_signed_v<W> == std::is_signed_v<T>)
		fits = v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
	else if constexpr (std::is_signed_v<W>)
		fits = v >= 0 && static_cast<std::make_unsigned_t<W>>(v) <=
					 std::numeric_limits<T>::max();
	else
		fits = v <= static_cast<std::make_unsigned_t<T>>(std::numeric_limits<T>::max());
	if (!fits)
		throw Error(TESSEL_ERANGE,
			    std::string(what) + ": " + std::to_string(v) +
				    " is out of range for the C type " +
				    (std::is_same_v<T, int>       ? "int"
				     : std::is_same_v<T, int64_t> ? "int64_t"
								  : "size_t") +
				    " (" + std::to_string(std::numeric_limits<T>::min()) + " .. " +
				    std::to_string(std::numeric_limits<T>::max()) + ")");
	return static_cast<T>(v);
}

// A parameter of C type T (int or int64_t) that takes any integer argument
// through exact(): implicit for integers, absent for everything else.
template <class T>
class Exact {
public:
	template <class U, if_integers<U> = 0>
	Exact(U value) : value_(exact<T>(value, "tessel: an integer argument"))
	{
	}
	operator T() const { return value_; }
	T get() const { return value_; }

private:
	T value_;
};

// A parameter of C type double (since 1.8.6): any floating-point
// argument, and an integer only when a double holds it exactly (beyond
// 2^53 it would be rounded: tessel::Error TESSEL_ERANGE); bool and other
// types do not compile, where C++ would convert them silently.
class Real {
public:
	template <class U, std::enable_if_t<std::is_floating_point_v<U>, int> = 0>
	Real(U value) : value_(to_double(value))
	{
	}
	template <class U, std::enable_if_t<std::is_integral_v<U> && !std::is_same_v<U, bool>, int> = 0>
	Real(U value) : value_(static_cast<double>(value))
	{
		bool fits = true;
		if constexpr (sizeof(U) >= 8) {
			constexpr double end = std::is_signed_v<U> ? 9223372036854775808.0
								   : 18446744073709551616.0;
			fits = value_ < end && static_cast<U>(value_) == value;
		}
		if (!fits)
			throw Error(TESSEL_ERANGE,
				    "tessel: a real argument: the integer " + std::to_string(value) +
					    " has no exact double (integers beyond 2^53 are "
					    "rounded): give a double to accept the nearest");
	}
	operator double() const { return value_; }

private:
	// a long double a double does not hold (0.1L, 1e-4000L, 1e400L) is
	// refused, not rounded (since 1.8.8); NaN and infinities are left to
	// the library
	template <class U>
	static double to_double(U value)
	{
		if constexpr (sizeof(U) > sizeof(double)) {
			constexpr U most = static_cast<U>(std::numeric_limits<double>::max());
			bool finite = value == value && value != std::numeric_limits<U>::infinity() &&
				      value != -std::numeric_limits<U>::infinity();
			if (finite && (value > most || value < -most ||
				       static_cast<U>(static_cast<double>(value)) != value)) {
				char text[64];
				std::snprintf(text, sizeof text, "%.21Lg", static_cast<long double>(value));
				throw Error(TESSEL_ERANGE, std::string("tessel: a real argument: the long double ") +
								   text +
								   " has no exact double: give a double to "
								   "accept the nearest");
			}
		}
		return static_cast<double>(value);
	}

	double value_;
};

// An element of a braced list of integers ({0, 1}) or of reals
// ({1.5, 2.0}): as Exact and Real, and a bool does not compile, where a
// std::vector<int> or std::vector<double> would take it (since 1.8.8).
struct IntItem : Exact<int> {
	using Exact<int>::Exact;
	IntItem(bool) = delete;
};
struct RealItem : Real {
	using Real::Real;
	RealItem(bool) = delete;
};

// A flag: a bool, and nothing C++ would convert to one without a word (an
// int 2, a pointer, a double do not compile; since 1.7.9).
class Flag {
public:
	template <class B, std::enable_if_t<std::is_same_v<B, bool>, int> = 0>
	Flag(B value) : value_(value)
	{
	}
	operator bool() const { return value_; }

private:
	bool value_;
};

// The error of a handle that holds nothing (moved from, released, or
// adopted from NULL).
[[noreturn]] inline void empty_handle(const char *type)
{
	throw Error(TESSEL_EINVAL, std::string("tessel::") + type +
					   ": the handle is empty (moved from, released or "
					   "adopted from NULL)");
}

// The text of a name, path or unit for C: tessel::Error (TESSEL_EINVAL)
// when it holds a NUL character, which C would take for its end (the
// text would be cut short without a word).
inline const char *c_text(const std::string &text, const char *what)
{
	if (text.find('\0') != std::string::npos)
		throw Error(TESSEL_EINVAL, std::string(what) + ": the text holds a NUL character");
	return text.c_str();
}

// Take ownership of a "new, release with tessel_free" text buffer.
inline std::string take_text(char *text)
{
	std::unique_ptr<char, void (*)(void *)> guard(text, tessel_free);
	return text ? std::string(text) : std::string();
}

template <typename T, void (*Free)(T *)>
struct Deleter {
	void operator()(T *p) const noexcept { Free(p); }
};

} // namespace detail

inline std::string version() { return tessel_version(); }
inline int version_number() { return tessel_version_number(); }

enum class Kind { Forward = TESSEL_KIND_FORWARD, Backward = TESSEL_KIND_BACKWARD,
		  Weight = TESSEL_KIND_WEIGHT };
enum class Phase { Warmup = TESSEL_PHASE_WARMUP, Repetend = TESSEL_PHASE_REPETEND,
		   Cooldown = TESSEL_PHASE_COOLDOWN };
enum class ActionKind { Compute = TESSEL_ACTION_COMPUTE, Send = TESSEL_ACTION_SEND,
			Recv = TESSEL_ACTION_RECV,
			Offload = TESSEL_ACTION_OFFLOAD, // since 1.6
			Reload = TESSEL_ACTION_RELOAD,   // since 1.6
			Wait = TESSEL_ACTION_WAIT };     // since 1.8
// What a schedule does with the activation of one (block, micro-batch)
// (tessel_choice, since 1.6).
enum class Choice { Keep = TESSEL_CHOICE_KEEP, Recompute = TESSEL_CHOICE_RECOMPUTE,
		    Offload = TESSEL_CHOICE_OFFLOAD };
// SearchOptions::alternatives (TESSEL_OPT_ALTERNATIVES, since 1.6): Search
// chooses per micro-batch among the declared alternatives, Off keeps every
// activation, Always takes every declared alternative (recompute where
// declared, else offload: a fixed rule).
enum class Alternatives { Off = 0, Search = 1, Always = 2 };

inline const char *to_string(Kind k)
{
	switch (k) {
	case Kind::Forward: return "forward";
	case Kind::Backward: return "backward";
	case Kind::Weight: return "weight";
	}
	return "?";
}

inline const char *to_string(Phase p)
{
	switch (p) {
	case Phase::Warmup: return "warmup";
	case Phase::Repetend: return "repetend";
	case Phase::Cooldown: return "cooldown";
	}
	return "?";
}

inline const char *to_string(ActionKind k)
{
	switch (k) {
	case ActionKind::Compute: return "compute";
	case ActionKind::Send: return "send";
	case ActionKind::Recv: return "recv";
	case ActionKind::Offload: return "offload";
	case ActionKind::Reload: return "reload";
	case ActionKind::Wait: return "wait";
	}
	return "?";
}

// "keep", "recompute" or "offload", as the schedule JSON spells a choice.
inline const char *to_string(Choice c)
{
	return tessel_choice_name(static_cast<tessel_choice>(c));
}

inline const char *to_string(Alternatives a)
{
	switch (a) {
	case Alternatives::Off: return "off";
	case Alternatives::Search: return "search";
	case Alternatives::Always: return "always";
	}
	return "?";
}

constexpr int all_devices = TESSEL_ALL_DEVICES;
constexpr int64_t unlimited = TESSEL_UNLIMITED;

// The recompute alternative of a block (Graph::recompute): a micro-batch
// that takes it drops `saves` of the activation after the forward, and
// `backward` (a gid) runs `extra` steps longer and takes `saves` back
// when it starts.
struct Recompute {
	int backward = -1;
	int saves = 0;
	int extra = 0;
};

// The offload alternative of a block (Graph::offload): `saves` goes to host
// memory after the block and back before `backward`, each copy taking
// `transfer` steps on the device's copy channel.
struct Offload {
	int backward = -1;
	int saves = 0;
	int transfer = 0;
};

// ---------------------------------------------------------------------------
// Graph
// ---------------------------------------------------------------------------

class Graph {
public:
	// An empty graph for `ndevices` devices.
	template <class N, detail::if_integers<N> = 0>
	explicit Graph(N ndevices)
	{
		tessel_graph *g = nullptr;
		detail::check(tessel_graph_new(&g, detail::exact<int>(ndevices, "tessel_graph_new: ndevices")),
			      "tessel_graph_new");
		ptr_.reset(g);
	}

	// Take ownership of a C graph (may be NULL only for a moved-from state).
	static Graph adopt(tessel_graph *g) { return Graph(g); }

	// The memory limit of every device defaults to preset_default: the
	// preset's own, 3 per 2 devices rounded up (6 on 4), as in `tessel
	// search --preset` and Python's Graph.preset; pass TESSEL_UNLIMITED
	// for none. preset_memory is that default on 4 devices (the default
	// on every device count before 1.4).
	static constexpr int64_t preset_default = TESSEL_PRESET_MEMORY;
	static constexpr int64_t preset_memory = 6;
	static Graph preset(const std::string &name, detail::Exact<int> devices,
			    detail::Exact<int64_t> memory = preset_default, detail::Flag infer = false)
	{
		tessel_graph *g = nullptr;
		detail::check(tessel_preset(&g, detail::c_text(name, "tessel_preset"), devices, infer ? 1 : 0, memory),
			      "tessel_preset");
		return Graph(g);
	}

	// Names of the built-in presets.
	static std::vector<std::string> preset_names()
	{
		std::vector<std::string> names;
		for (size_t i = 0; i < tessel_preset_count(); i++) {
			const char *name = nullptr;
			detail::check(tessel_preset_info(&name, nullptr, i), "tessel_preset_info");
			names.emplace_back(name);
		}
		return names;
	}

	static Graph from_json(const std::string &text)
	{
		tessel_graph *g = nullptr;
		detail::check(tessel_graph_from_json(&g, text.data(), text.size()),
			      "tessel_graph_from_json");
		return Graph(g);
	}

	static Graph from_file(const std::string &path)
	{
		tessel_graph *g = nullptr;
		detail::check(tessel_graph_from_file(&g, detail::c_text(path, "tessel_graph_from_file")), "tessel_graph_from_file");
		return Graph(g);
	}

	Graph(Graph &&) noexcept = default;
	Graph &operator=(Graph &&) noexcept = default;
	Graph(const Graph &) = delete;
	Graph &operator=(const Graph &) = delete;

	// Deep copy (explicit, handles stay move-only).
	Graph clone() const
	{
		auto held = lock();
		tessel_graph *g = nullptr;
		detail::check(tessel_graph_dup(&g, get()), "tessel_graph_dup");
		return Graph(g);
	}

	std::string to_json() const
	{
		auto held = lock();
		char *text = nullptr;
		detail::check(tessel_graph_to_json(&text, get()), "tessel_graph_to_json");
		return detail::take_text(text);
	}

	// Add a block; returns its id.
	int add_block(const std::string &name, Kind kind, detail::Exact<int> span, detail::Exact<int> memory)
	{
		auto held = lock();
		int gid = -1;
		detail::check(tessel_graph_add_block(&gid, get(), detail::c_text(name, "tessel_graph_add_block"),
						     static_cast<tessel_kind>(kind), span, memory),
			      "tessel_graph_add_block");
		return gid;
	}

	void place(detail::Exact<int> gid, const std::vector<int> &devices)
	{
		auto held = lock();
		detail::check(tessel_graph_place(get(), gid, devices.data(), devices.size()),
			      "tessel_graph_place");
	}

	// place(b, {0, 1}): each device an integer as Exact takes it; {true}
	// does not compile (since 1.8.8)
	void place(detail::Exact<int> gid, std::initializer_list<detail::IntItem> devices)
	{
		std::vector<int> ids(devices.begin(), devices.end());
		place(gid, ids);
	}

	template <class G, class D, detail::if_integers<G, D> = 0>
	void place(G gid, D device)
	{
		place(detail::exact<int>(gid, "tessel::Graph::place: gid"),
		      std::vector<int>{detail::exact<int>(device, "tessel::Graph::place: device")});
	}

	template <class B, class A, detail::if_integers<B, A> = 0>
	void add_dep(B before, A after)
	{
		int b = detail::exact<int>(before, "tessel::Graph::add_dep: before");
		int a = detail::exact<int>(after, "tessel::Graph::add_dep: after");
		auto held = lock();
		detail::check(tessel_graph_add_dep(get(), b, a), "tessel_graph_add_dep");
	}

	// The same by block names (tessel::Error TESSEL_ENOTFOUND for an
	// unknown name).
	void add_dep(const std::string &before, const std::string &after)
	{
		add_dep(find(before), find(after));
	}

	void add_dep_latency(const std::string &before, const std::string &after,
			     detail::Exact<int> latency)
	{
		add_dep_latency(find(before), find(after), latency.get());
	}

	// A dependency with its own latency, in steps.
	template <class B, class A, class L, detail::if_integers<B, A, L> = 0>
	void add_dep_latency(B before, A after, L latency)
	{
		int b = detail::exact<int>(before, "tessel::Graph::add_dep_latency: before");
		int a = detail::exact<int>(after, "tessel::Graph::add_dep_latency: after");
		int l = detail::exact<int>(latency, "tessel::Graph::add_dep_latency: latency");
		auto held = lock();
		detail::check(tessel_graph_add_dep_latency(get(), b, a, l),
			      "tessel_graph_add_dep_latency");
	}

	// A dependency with its own latency in the step's unit.
	void add_dep_latency_time(detail::Exact<int> before, detail::Exact<int> after, detail::Real latency)
	{
		auto held = lock();
		detail::check(tessel_graph_add_dep_latency_time(get(), before, after, latency),
			      "tessel_graph_add_dep_latency_time");
	}

	// Latency of dependencies without their own: in steps, or in the unit.
	void set_latency(detail::Exact<int> latency)
	{
		auto held = lock();
		detail::check(tessel_graph_set_latency(get(), latency), "tessel_graph_set_latency");
	}

	void set_latency_time(detail::Real latency)
	{
		auto held = lock();
		detail::check(tessel_graph_set_latency_time(get(), latency),
			      "tessel_graph_set_latency_time");
	}

	int64_t latency() const { return attr(TESSEL_GRAPH_LATENCY); }

	double latency_time() const
	{
		auto held = lock();
		double v = 0;
		detail::check(tessel_graph_latency_time(&v, get()), "tessel_graph_latency_time");
		return v;
	}

	// Latency of the index-th dependency of a block, in steps and in the unit.
	int64_t dep_latency(detail::Exact<int> gid, detail::Exact<size_t> index) const
	{
		auto held = lock();
		int64_t v = 0;
		detail::check(tessel_graph_block_dep_latency(&v, nullptr, get(), gid, index),
			      "tessel_graph_block_dep_latency");
		return v;
	}

	double dep_latency_time(detail::Exact<int> gid, detail::Exact<size_t> index) const
	{
		auto held = lock();
		double v = 0;
		detail::check(tessel_graph_block_dep_latency_time(&v, nullptr, get(), gid, index),
			      "tessel_graph_block_dep_latency_time");
		return v;
	}

	// Length of one step in the unit (0: none); durations round again.
	void set_step(detail::Real step)
	{
		auto held = lock();
		detail::check(tessel_graph_set_step(get(), step), "tessel_graph_set_step");
	}

	double step() const
	{
		auto held = lock();
		double v = 0;
		detail::check(tessel_graph_step(&v, get()), "tessel_graph_step");
		return v;
	}

	// Name of the unit ("ms", ...); an empty string removes it.
	void set_unit(const std::string &unit)
	{
		auto held = lock();
		detail::check(tessel_graph_set_unit(get(), detail::c_text(unit, "tessel_graph_set_unit")), "tessel_graph_set_unit");
	}

	std::string unit() const
	{
		auto held = lock();
		const char *u = nullptr;
		detail::check(tessel_graph_unit(&u, get()), "tessel_graph_unit");
		return u ? u : "";
	}

	// A block's duration in the step's unit (its span follows).
	void set_duration(detail::Exact<int> gid, detail::Real duration)
	{
		auto held = lock();
		detail::check(tessel_graph_set_block_duration(get(), gid, duration),
			      "tessel_graph_set_block_duration");
	}

	double duration(detail::Exact<int> gid) const
	{
		auto held = lock();
		double v = 0;
		detail::check(tessel_graph_block_duration(&v, nullptr, get(), gid),
			      "tessel_graph_block_duration");
		return v;
	}

	void set_stage(detail::Exact<int> gid, detail::Exact<int> stage)
	{
		auto held = lock();
		detail::check(tessel_graph_set_stage(get(), gid, stage), "tessel_graph_set_stage");
	}

	// Memory limit of one device, or of every device with all_devices.
	void set_memory_limit(detail::Exact<int64_t> limit, detail::Exact<int> device = TESSEL_ALL_DEVICES)
	{
		auto held = lock();
		detail::check(tessel_graph_set_memory_limit(get(), device, limit),
			      "tessel_graph_set_memory_limit");
	}

	int64_t memory_limit(detail::Exact<int> device) const
	{
		auto held = lock();
		int64_t v = 0;
		detail::check(tessel_graph_memory_limit(&v, get(), device),
			      "tessel_graph_memory_limit");
		return v;
	}

	void validate() const
	{
		auto held = lock();
		detail::check(tessel_graph_validate(get()), "tessel_graph_validate");
	}

	int find(const std::string &name) const
	{
		auto held = lock();
		int gid = -1;
		detail::check(tessel_graph_find(&gid, get(), detail::c_text(name, "tessel_graph_find")), "tessel_graph_find");
		return gid;
	}

	int64_t devices() const { return attr(TESSEL_GRAPH_NDEVICES); }
	int64_t blocks() const { return attr(TESSEL_GRAPH_NBLOCKS); }
	int64_t resource_bound() const { return attr(TESSEL_GRAPH_RESOURCE_BOUND); }
	int64_t critical_path() const { return attr(TESSEL_GRAPH_CRITICAL_PATH); }

	int64_t lower_bound(detail::Exact<int64_t> micro_batches) const
	{
		auto held = lock();
		int64_t v = 0;
		detail::check(tessel_graph_lower_bound(&v, get(), micro_batches),
			      "tessel_graph_lower_bound");
		return v;
	}

	// The smallest memory limit, equal on every device, under which any
	// schedule of `micro_batches` exists (tessel_graph_min_memory: one
	// micro-batch at a time); second: proven the smallest.
	std::pair<int64_t, bool> min_memory(detail::Exact<int64_t> micro_batches) const
	{
		auto held = lock();
		int64_t v = 0;
		int proven = 0;
		detail::check(tessel_graph_min_memory(&v, &proven, get(), micro_batches),
			      "tessel_graph_min_memory");
		return {v, proven != 0};
	}

	std::string block_name(detail::Exact<int> gid) const
	{
		auto held = lock();
		const char *name = nullptr;
		detail::check(tessel_graph_block_name(&name, get(), gid), "tessel_graph_block_name");
		return name;
	}

	int64_t block_get(detail::Exact<int> gid, tessel_block_attr a) const
	{
		auto held = lock();
		int64_t v = 0;
		detail::check(tessel_graph_block_get(&v, get(), gid, a), "tessel_graph_block_get");
		return v;
	}

	std::vector<int> block_devices(detail::Exact<int> gid) const
	{
		auto held = lock();
		std::vector<int> out(static_cast<size_t>(block_get(gid, TESSEL_BLOCK_NDEVICES)));
		for (size_t i = 0; i < out.size(); i++)
			detail::check(tessel_graph_block_device(&out[i], get(), gid, i),
				      "tessel_graph_block_device");
		return out;
	}

	// Declare that block `gid` may drop `saves` (1 .. its memory) of its
	// activation and have it recomputed: its backward `backward` (same
	// devices, depending on it) then runs `extra` steps longer. A search
	// chooses per micro-batch (SearchOptions::alternatives).
	template <class G, class B, class S, class X, detail::if_integers<G, B, S, X> = 0>
	void set_recompute(G block, B backward_block, S saves_value, X extra_value)
	{
		int gid = detail::exact<int>(block, "tessel::Graph::set_recompute: gid");
		int backward = detail::exact<int>(backward_block, "tessel::Graph::set_recompute: backward");
		int saves = detail::exact<int>(saves_value, "tessel::Graph::set_recompute: saves");
		int extra = detail::exact<int>(extra_value, "tessel::Graph::set_recompute: extra");
		auto held = lock();
		if (backward < 0)
			throw Error(TESSEL_ENOTFOUND,
				    "tessel::Graph::set_recompute: backward block id " +
					    std::to_string(backward) +
					    " out of range (clear_recompute removes the declaration)");
		detail::check(tessel_graph_set_recompute(get(), gid, backward, saves, extra),
			      "tessel_graph_set_recompute");
	}

	void set_recompute(const std::string &block, const std::string &backward, detail::Exact<int> saves,
			   detail::Exact<int> extra)
	{
		set_recompute(find(block), find(backward), saves.get(), extra.get());
	}

	// Remove the recompute declaration of a block (none: nothing to do).
	void clear_recompute(detail::Exact<int> gid)
	{
		auto held = lock();
		detail::check(tessel_graph_set_recompute(get(), gid, -1, 0, 0),
			      "tessel_graph_set_recompute");
	}

	// Declare that block `gid` may offload `saves` (1 .. its memory) of its
	// activation to host memory and have it reloaded before `backward`,
	// each copy taking `transfer` steps (>= 1) on the device's copy channel.
	template <class G, class B, class S, class X, detail::if_integers<G, B, S, X> = 0>
	void set_offload(G block, B backward_block, S saves_value, X transfer_value)
	{
		int gid = detail::exact<int>(block, "tessel::Graph::set_offload: gid");
		int backward = detail::exact<int>(backward_block, "tessel::Graph::set_offload: backward");
		int saves = detail::exact<int>(saves_value, "tessel::Graph::set_offload: saves");
		int transfer = detail::exact<int>(transfer_value, "tessel::Graph::set_offload: transfer");
		auto held = lock();
		if (backward < 0)
			throw Error(TESSEL_ENOTFOUND,
				    "tessel::Graph::set_offload: backward block id " +
					    std::to_string(backward) +
					    " out of range (clear_offload removes the declaration)");
		detail::check(tessel_graph_set_offload(get(), gid, backward, saves, transfer),
			      "tessel_graph_set_offload");
	}

	void set_offload(const std::string &block, const std::string &backward, detail::Exact<int> saves,
			 detail::Exact<int> transfer)
	{
		set_offload(find(block), find(backward), saves.get(), transfer.get());
	}

	void clear_offload(detail::Exact<int> gid)
	{
		auto held = lock();
		detail::check(tessel_graph_set_offload(get(), gid, -1, 0, 0),
			      "tessel_graph_set_offload");
	}

	// The recompute alternative of a block, std::nullopt when it declares
	// none; tessel::Error (TESSEL_ENOTFOUND) for an unknown block.
	template <class G, detail::if_integers<G> = 0>
	std::optional<Recompute> recompute(G block) const
	{
		int gid = detail::exact<int>(block, "tessel::Graph::recompute: gid");
		Recompute r;
		if (!alternative(tessel_graph_block_recompute, "tessel_graph_block_recompute", gid,
				 r.backward, r.saves, r.extra))
			return std::nullopt;
		return r;
	}

	std::optional<Recompute> recompute(const std::string &block) const
	{
		return recompute(find(block));
	}

	template <class G, detail::if_integers<G> = 0>
	std::optional<Offload> offload(G block) const
	{
		int gid = detail::exact<int>(block, "tessel::Graph::offload: gid");
		Offload o;
		if (!alternative(tessel_graph_block_offload, "tessel_graph_block_offload", gid,
				 o.backward, o.saves, o.transfer))
			return std::nullopt;
		return o;
	}

	std::optional<Offload> offload(const std::string &block) const
	{
		return offload(find(block));
	}

	std::vector<int> block_deps(detail::Exact<int> gid) const
	{
		auto held = lock();
		std::vector<int> out(static_cast<size_t>(block_get(gid, TESSEL_BLOCK_NDEPS)));
		for (size_t i = 0; i < out.size(); i++)
			detail::check(tessel_graph_block_dep(&out[i], get(), gid, i),
				      "tessel_graph_block_dep");
		return out;
	}

	// The C graph; throws tessel::Error for an empty handle. (The Graph's
	// own functions hold its lock while they use it; a caller of get()
	// holds none.)
	tessel_graph *get() const
	{
		if (!ptr_)
			detail::empty_handle("Graph");
		return ptr_.get();
	}
	// Give up ownership (the Graph becomes empty); NULL when empty.
	tessel_graph *release() noexcept { return ptr_.release(); }
	explicit operator bool() const noexcept { return ptr_ != nullptr; }

	// The Graph's lock, held by each of its functions for its call (a
	// recursive mutex: they call each other); tessel::search holds it
	// while it copies the graph. Throws tessel::Error for an empty handle.
	std::unique_lock<std::recursive_mutex> lock() const
	{
		if (!mu_ || !ptr_)
			detail::empty_handle("Graph");
		return std::unique_lock<std::recursive_mutex>(*mu_);
	}

private:
	explicit Graph(tessel_graph *g) : ptr_(g) {}

	int64_t attr(tessel_graph_attr a) const
	{
		auto held = lock();
		int64_t v = 0;
		detail::check(tessel_graph_get(&v, get(), a), "tessel_graph_get");
		return v;
	}

	// Read one alternative; false when the block declares none of it.
	bool alternative(int (*fn)(int *, int *, int *, const tessel_graph *, int),
			 const char *what, int gid, int &backward, int &saves, int &cost) const
	{
		auto held = lock();
		const tessel_graph *g = get();
		int rc = fn(&backward, &saves, &cost, g, gid);
		if (rc == TESSEL_ENOTFOUND && gid >= 0 && gid < blocks()) {
			tessel_error_clear(); // declared none: not an error
			return false;
		}
		detail::check(rc, what);
		return true;
	}

	std::unique_ptr<tessel_graph, detail::Deleter<tessel_graph, tessel_graph_free>> ptr_;
	std::unique_ptr<std::recursive_mutex> mu_ = std::make_unique<std::recursive_mutex>();
};

// A step for profiled durations and latencies in one unit (the 1 % rule).
inline double pick_step(const std::vector<double> &values)
{
	double step = 0;
	detail::check(tessel_pick_step(&step, values.data(), values.size()),
		      "tessel_pick_step");
	return step;
}

// pick_step({1.5, 3}): each value as Real takes it; {true} does not compile
// (since 1.8.8)
inline double pick_step(std::initializer_list<detail::RealItem> values)
{
	return pick_step(std::vector<double>(values.begin(), values.end()));
}

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

// What the progress callback receives each time the search finds a schedule
// better than all before (a progress event of tessel_options_set_progress_fn
// with TESSEL_PROGRESS_IMPROVED 1).
struct Progress {
	int64_t period = 0;      // P_k: steps of one repetition of k micro-batches
	int64_t repetend_micro_batches = 1; // k
	int64_t makespan = 0;    // before the final compaction (may shrink)
	int64_t lower_bound = 0; // LB(N)
	bool period_proven = false;
	std::string phase;       // the phase the search is in ("compaction", ...)
	int64_t work = 0;        // work units spent so far
	int64_t work_limit = 0;  // the work budget (0: none)
	std::chrono::microseconds elapsed{0}; // since the search began

	// P_k / k: the steady state's steps per micro-batch.
	double period_per_micro_batch() const
	{
		return repetend_micro_batches > 1
			       ? static_cast<double>(period) / static_cast<double>(repetend_micro_batches)
			       : static_cast<double>(period);
	}
};

// Return true to go on, false to stop the search (it then returns the best
// schedule so far). An exception thrown here stops the search and comes
// out of tessel::search unchanged.
using ProgressCallback = std::function<bool(const Progress &)>;

// A cancel request that can be made from any thread, before or during a
// search; copies share one request. A search given a token that is already
// cancelled stops at once (tessel::Error TESSEL_ECANCELLED, or the best
// schedule so far). reset() withdraws the request (not while a search
// with this token runs): the next search with an Options made with this
// token runs again.
class CancelToken {
public:
	CancelToken() : state_(std::make_shared<State>()) {}

	void cancel()
	{
		std::lock_guard<std::mutex> lock(state_->mutex);
		state_->cancelled = true;
		for (const Running &r : state_->running) {
			if (r.flag)
				*r.flag = true;
			tessel_options_cancel(r.options);
		}
	}
	bool cancelled() const
	{
		std::lock_guard<std::mutex> lock(state_->mutex);
		return state_->cancelled;
	}
	void reset()
	{
		std::lock_guard<std::mutex> lock(state_->mutex);
		state_->cancelled = false;
	}

	// Used by tessel::search: the options of a search about to run / that
	// has ended (the C options are cancelled now if the request came
	// first).
	void attach(tessel_options *o) const { attach(o, nullptr); }
	// The same, `flag` (may be NULL) set whenever this token cancels o.
	void attach(tessel_options *o, std::atomic<bool> *flag) const
	{
		std::lock_guard<std::mutex> lock(state_->mutex);
		state_->running.push_back({o, flag});
		if (state_->cancelled) {
			if (flag)
				*flag = true;
			tessel_options_cancel(o);
		}
	}
	void detach(tessel_options *o) const noexcept
	{
		std::lock_guard<std::mutex> lock(state_->mutex);
		auto &r = state_->running;
		for (size_t i = 0; i < r.size(); i++)
			if (r[i].options == o) {
				r.erase(r.begin() + static_cast<std::ptrdiff_t>(i));
				break;
			}
	}

private:
	struct Running {
		tessel_options *options;
		std::atomic<bool> *flag;
	};
	struct State {
		mutable std::mutex mutex;
		bool cancelled = false;
		std::vector<Running> running;
	};
	std::shared_ptr<State> state_;
};

// Every search option of tessel.h, with the library's defaults (the same as
// the tessel command line's); an aggregate, so SearchOptions{16, 5000}
// gives 16 micro-batches and 5 s. Values out of range throw tessel::Error
// (TESSEL_ERANGE) from tessel::search; nothing is clamped.
struct SearchOptions {
	detail::Exact<int64_t> micro_batches = 16;              // TESSEL_OPT_MICRO_BATCHES
	detail::Exact<int64_t> time_limit_ms = 0;               // TESSEL_OPT_TIME_LIMIT_MS, 0: none
	detail::Exact<int64_t> threads = 0;                     // TESSEL_OPT_THREADS, 0: all cores
	detail::Flag fast = false;                              // TESSEL_OPT_FAST
	detail::Exact<int64_t> max_period = 0;                  // TESSEL_OPT_MAX_PERIOD, 0: automatic
	detail::Exact<int64_t> seed = 0;                        // TESSEL_OPT_SEED
	detail::Flag minimize_depth = true;                     // TESSEL_OPT_MINIMIZE_DEPTH
	detail::Exact<int64_t> solver_memory_mb = 0;            // TESSEL_OPT_SOLVER_MEMORY_MB, 0: no cap
	detail::Exact<int64_t> repetend_micro_batches = 8;      // TESSEL_OPT_REPETEND_MICRO_BATCHES
	ProgressCallback progress{};                            // empty: none
	CancelToken cancel{};                                   // cancel() from any thread
	// TESSEL_OPT_WORK_LIMIT, work units, 0: none (since 1.2; last, so that
	// positional initialisers written before it keep their meaning)
	detail::Exact<int64_t> work_limit = TESSEL_WORK_AUTO;
	// TESSEL_OPT_ALTERNATIVES (since 1.6; after work_limit for the same
	// reason)
	Alternatives alternatives = Alternatives::Search;

	// The time limit as a std::chrono duration, rounded up to whole
	// milliseconds (as the command line's --time-limit); zero: none.
	// Negative durations throw tessel::Error (TESSEL_ERANGE) from
	// tessel::search, as a negative time_limit_ms does.
	// A duration that is not a number, or beyond the library's largest
	// limit (a day), throws tessel::Error (TESSEL_ERANGE) here: it is not
	// converted into another number.
	template <class Rep, class Period>
	SearchOptions &set_time_limit(std::chrono::duration<Rep, Period> d)
	{
		using seconds = std::chrono::duration<long double>;
		long double s = std::chrono::duration_cast<seconds>(d).count();
		int64_t lo = 0, hi = 0;
		detail::check(tessel_options_bounds(&lo, &hi, TESSEL_OPT_TIME_LIMIT_MS),
			      "tessel_options_bounds");
		if (!(s == s) || s > static_cast<long double>(hi) / 1000 || s < -static_cast<long double>(hi) / 1000)
			throw Error(TESSEL_ERANGE,
				    "set_time_limit: the duration is not a number of "
				    "seconds within a day");
		long double ms = s * 1000;
		if (s < 0) {
			/* (refused by tessel::search, as any negative
			 * time_limit_ms: rounded down, never to 0) */
			int64_t whole = static_cast<int64_t>(ms);
			time_limit_ms = whole - (static_cast<long double>(whole) > ms ? 1 : 0);
			return *this;
		}
		int64_t whole = static_cast<int64_t>(ms);
		time_limit_ms = whole + (static_cast<long double>(whole) < ms ? 1 : 0);
		return *this;
	}

	// The time limit as a duration.
	std::chrono::milliseconds time_limit() const
	{
		return std::chrono::milliseconds(time_limit_ms.get());
	}
};

namespace detail {
// Where the progress callback of the innermost search running on this
// thread leaves its exception (each search its own: searches on other
// threads sharing the options have theirs). The C library calls the
// callback from the searching thread.
inline std::exception_ptr *&callback_error_slot() noexcept
{
	thread_local std::exception_ptr *slot = nullptr;
	return slot;
}

// A search's slot for the callback's exception, for as long as it runs on
// this thread (a search from a callback has its own, the outer one's back
// after it).
class CallbackErrorScope {
public:
	CallbackErrorScope() noexcept : prev_(callback_error_slot()) { callback_error_slot() = &error_; }
	~CallbackErrorScope() { callback_error_slot() = prev_; }
	CallbackErrorScope(const CallbackErrorScope &) = delete;
	CallbackErrorScope &operator=(const CallbackErrorScope &) = delete;
	std::exception_ptr take() noexcept
	{
		std::exception_ptr e = error_;
		error_ = nullptr;
		return e;
	}

private:
	std::exception_ptr *prev_;
	std::exception_ptr error_;
};
} // namespace detail

// The C options with their progress callback and cancel token. One
// Options may serve several searches at once, on any threads: each search
// holds the options' state while it runs, so that moving another Options
// into this one, or destroying it, leaves running searches with the
// options they began with (the state goes when the last of them ends);
// that, like any change of one C++ object from two threads at the very
// same moment, needs no search to be starting at that instant. A change
// (set, set_progress, clear_cancel) is refused while a search uses the
// options, atomically: no search starts half-way through a change.
class Options {
	// (the state searches hold while they run)
	struct ProgressHolder {
		ProgressCallback fn;
		std::mutex mutex; // (error)
		std::exception_ptr error;
	};

	struct State {
		std::mutex mutex; // busy, and changes of the C options
		int busy = 0;     // searches using these options
		std::unique_ptr<tessel_options, detail::Deleter<tessel_options, tessel_options_free>> ptr;
		std::unique_ptr<ProgressHolder> progress;
		std::unique_ptr<CancelToken> token;
		std::atomic<bool> cancelled_here{false};  // by cancel()
		std::atomic<bool> token_cancelled{false}; // by the token

		void not_in_use(const char *what) const
		{
			if (busy > 0)
				throw Error(TESSEL_EINVAL, std::string(what) +
								   ": a search uses these options (change "
								   "them between searches)");
		}
	};

public:
	Options() : st_(std::make_shared<State>())
	{
		tessel_options *o = nullptr;
		detail::check(tessel_options_new(&o), "tessel_options_new");
		st_->ptr.reset(o);
	}

	// Every value of `so`, its progress callback and its cancel token.
	explicit Options(const SearchOptions &so) : Options()
	{
		set(TESSEL_OPT_MICRO_BATCHES, so.micro_batches);
		set(TESSEL_OPT_TIME_LIMIT_MS, so.time_limit_ms);
		set(TESSEL_OPT_THREADS, so.threads);
		set(TESSEL_OPT_FAST, so.fast ? 1 : 0);
		set(TESSEL_OPT_MAX_PERIOD, so.max_period);
		set(TESSEL_OPT_SEED, so.seed);
		set(TESSEL_OPT_MINIMIZE_DEPTH, so.minimize_depth ? 1 : 0);
		set(TESSEL_OPT_SOLVER_MEMORY_MB, so.solver_memory_mb);
		set(TESSEL_OPT_REPETEND_MICRO_BATCHES, so.repetend_micro_batches);
		set(TESSEL_OPT_WORK_LIMIT, so.work_limit);
		set(TESSEL_OPT_ALTERNATIVES, static_cast<int64_t>(so.alternatives));
		if (so.progress)
			set_progress(so.progress);
		st_->token = std::make_unique<CancelToken>(so.cancel);
	}

	Options(Options &&) noexcept = default;
	Options &operator=(Options &&) noexcept = default;
	Options(const Options &) = delete;
	Options &operator=(const Options &) = delete;

	// Not while a search uses these options (tessel::Error, TESSEL_EINVAL,
	// from any thread, a progress callback's included).
	Options &set(tessel_option key, detail::Exact<int64_t> value)
	{
		State &st = state();
		std::lock_guard<std::mutex> lock(st.mutex);
		st.not_in_use("Options::set");
		detail::check(tessel_options_set(st.ptr.get(), key, value), "tessel_options_set");
		return *this;
	}

	int64_t get(tessel_option key) const
	{
		State &st = state();
		std::lock_guard<std::mutex> lock(st.mutex);
		int64_t v = 0;
		detail::check(tessel_options_get(&v, st.ptr.get(), key), "tessel_options_get");
		return v;
	}

	// Allowed range of an option: {min, max}.
	static std::pair<int64_t, int64_t> bounds(tessel_option key)
	{
		int64_t lo = 0, hi = 0;
		detail::check(tessel_options_bounds(&lo, &hi, key), "tessel_options_bounds");
		return {lo, hi};
	}

	// The progress callback of searches with these options (an empty
	// function removes it). Not while a search uses these options: that
	// throws tessel::Error (TESSEL_EINVAL), from a progress callback too
	// (the search then stops and search() throws it), and the callback
	// running stays. Searches running at once on several threads call it
	// each from its own thread, at the same time.
	Options &set_progress(ProgressCallback cb)
	{
		State &st = state();
		std::lock_guard<std::mutex> lock(st.mutex);
		st.not_in_use("Options::set_progress");
		tessel_options *o = st.ptr.get();
		if (!cb) {
			detail::check(tessel_options_set_progress_fn(o, nullptr, nullptr),
				      "tessel_options_set_progress_fn");
			st.progress.reset();
			return *this;
		}
		auto holder = std::make_unique<ProgressHolder>();
		holder->fn = std::move(cb);
		detail::check(tessel_options_set_progress_fn(o, &Options::trampoline, holder.get()),
			      "tessel_options_set_progress_fn");
		st.progress = std::move(holder);
		return *this;
	}

	// Thread-safe: ask running searches with these options to stop (and
	// later ones, until clear_cancel).
	void cancel()
	{
		State &st = state();
		st.cancelled_here = true;
		detail::check(tessel_options_cancel(st.ptr.get()), "tessel_options_cancel");
	}
	// Withdraw cancel(); not while a search uses these options
	// (tessel::Error, TESSEL_EINVAL).
	void clear_cancel()
	{
		State &st = state();
		std::lock_guard<std::mutex> lock(st.mutex);
		st.not_in_use("Options::clear_cancel");
		detail::check(tessel_options_clear_cancel(st.ptr.get()), "tessel_options_clear_cancel");
		st.cancelled_here = false;
		st.token_cancelled = false;
	}

	// The C options; throws tessel::Error for an empty handle.
	tessel_options *get() const { return state().ptr.get(); }

	// Used by tessel::search.
	const CancelToken *token() const noexcept { return st_ ? st_->token.get() : nullptr; }

	// Used by tessel::search: the options in use while it runs (a change
	// is refused meanwhile), their state held (it stays when the Options
	// is moved into or destroyed), the cancel token attached. A token
	// reset() since it cancelled these options no longer cancels them.
	class InUse {
	public:
		explicit InUse(const Options &o) : st_(o.st_)
		{
			if (!st_)
				detail::empty_handle("Options");
			{
				std::lock_guard<std::mutex> lock(st_->mutex);
				if (st_->busy == 0 && st_->token_cancelled && !st_->cancelled_here &&
				    st_->token && !st_->token->cancelled()) {
					detail::check(tessel_options_clear_cancel(st_->ptr.get()),
						      "tessel_options_clear_cancel");
					st_->token_cancelled = false;
				}
				++st_->busy;
			}
			try {
				if (st_->token)
					st_->token->attach(st_->ptr.get(), &st_->token_cancelled);
			} catch (...) {
				std::lock_guard<std::mutex> lock(st_->mutex);
				--st_->busy;
				throw;
			}
		}
		~InUse()
		{
			if (st_->token)
				st_->token->detach(st_->ptr.get());
			std::lock_guard<std::mutex> lock(st_->mutex);
			--st_->busy;
		}
		InUse(const InUse &) = delete;
		InUse &operator=(const InUse &) = delete;
		tessel_options *get() const noexcept { return st_->ptr.get(); }

	private:
		std::shared_ptr<State> st_;
	};
	// The exception a progress callback threw where no tessel::search was
	// running on its thread (the C options used directly), and forget it;
	// tessel::search rethrows its own callback's exception itself.
	std::exception_ptr take_callback_error() const noexcept
	{
		if (!st_ || !st_->progress)
			return nullptr;
		std::lock_guard<std::mutex> lock(st_->progress->mutex);
		std::exception_ptr e = st_->progress->error;
		st_->progress->error = nullptr;
		return e;
	}

private:
	State &state() const
	{
		if (!st_ || !st_->ptr)
			detail::empty_handle("Options");
		return *st_;
	}

	static int64_t figure(const tessel_progress *e, tessel_progress_attr attr)
	{
		int64_t v = 0;
		return tessel_progress_get(&v, e, attr) == TESSEL_OK ? v : 0;
	}

	static int trampoline(const tessel_progress *e, void *payload) noexcept
	{
		auto *h = static_cast<ProgressHolder *>(payload);
		try {
			if (!figure(e, TESSEL_PROGRESS_IMPROVED))
				return 0; /* a phase begins: not a better schedule */
			Progress p;
			p.period = figure(e, TESSEL_PROGRESS_PERIOD);
			int64_t k = figure(e, TESSEL_PROGRESS_REPETEND_MICRO_BATCHES);
			p.repetend_micro_batches = k > 1 ? k : 1;
			p.makespan = figure(e, TESSEL_PROGRESS_MAKESPAN);
			p.lower_bound = figure(e, TESSEL_PROGRESS_LOWER_BOUND);
			p.period_proven = figure(e, TESSEL_PROGRESS_PERIOD_PROVEN) != 0;
			p.work = figure(e, TESSEL_PROGRESS_WORK);
			p.work_limit = figure(e, TESSEL_PROGRESS_WORK_LIMIT);
			p.elapsed = std::chrono::microseconds(figure(e, TESSEL_PROGRESS_MICROSECONDS));
			const char *phase = nullptr;
			if (tessel_progress_phase(&phase, e) == TESSEL_OK && phase)
				p.phase = phase;
			return h->fn(p) ? 0 : 1;
		} catch (...) {
			if (std::exception_ptr *slot = detail::callback_error_slot()) {
				*slot = std::current_exception();
			} else {
				std::lock_guard<std::mutex> lock(h->mutex);
				h->error = std::current_exception();
			}
			return 1;
		}
	}

	std::shared_ptr<State> st_;
};

// ---------------------------------------------------------------------------
// Entries and actions, copied out of the C objects
// ---------------------------------------------------------------------------

struct Entry {
	std::string block;
	int gid = -1;
	int64_t micro_batch = 0;
	int64_t start = 0;
	int64_t span = 0;
	Phase phase = Phase::Warmup;
	Kind kind = Kind::Forward;
	int64_t memory = 0;  // this entry's: less for a recomputed forward
	std::vector<int> devices;
	// since 1.6: what the entry does with its activation, and the start
	// steps of an offload's copies (-1 unless choice is Choice::Offload)
	Choice choice = Choice::Keep;
	int64_t offload_start = -1;
	int64_t reload_start = -1;

	int64_t finish() const { return start + span; }
};

struct Action {
	ActionKind kind = ActionKind::Compute;
	int gid = -1;
	int64_t micro_batch = 0;
	int peer = -1;
	int peer_gid = -1;
	int64_t step = 0;
	int64_t latency = 0; // send/recv: arrival = step + latency
};

namespace detail {

inline int64_t entry_attr(const tessel_entry *e, tessel_entry_attr a)
{
	int64_t v = 0;
	check(tessel_entry_get(&v, e, a), "tessel_entry_get");
	return v;
}

inline Entry copy_entry(const tessel_entry *e)
{
	Entry out;
	const char *name = nullptr;
	check(tessel_entry_name(&name, e), "tessel_entry_name");
	out.block = name;
	out.gid = static_cast<int>(entry_attr(e, TESSEL_ENTRY_GID));
	out.micro_batch = entry_attr(e, TESSEL_ENTRY_MICRO_BATCH);
	out.start = entry_attr(e, TESSEL_ENTRY_START);
	out.span = entry_attr(e, TESSEL_ENTRY_SPAN);
	out.phase = static_cast<Phase>(entry_attr(e, TESSEL_ENTRY_PHASE));
	out.kind = static_cast<Kind>(entry_attr(e, TESSEL_ENTRY_KIND));
	out.memory = entry_attr(e, TESSEL_ENTRY_MEMORY);
	out.choice = static_cast<Choice>(entry_attr(e, TESSEL_ENTRY_CHOICE));
	out.offload_start = entry_attr(e, TESSEL_ENTRY_OFFLOAD_START);
	out.reload_start = entry_attr(e, TESSEL_ENTRY_RELOAD_START);
	size_t n = static_cast<size_t>(entry_attr(e, TESSEL_ENTRY_NDEVICES));
	out.devices.resize(n);
	for (size_t i = 0; i < n; i++)
		check(tessel_entry_device(&out.devices[i], e, i), "tessel_entry_device");
	return out;
}

inline int64_t action_attr(const tessel_action *a, tessel_action_attr key)
{
	int64_t v = 0;
	check(tessel_action_get(&v, a, key), "tessel_action_get");
	return v;
}

inline Action copy_action(const tessel_action *a)
{
	Action out;
	out.kind = static_cast<ActionKind>(action_attr(a, TESSEL_ACTION_KIND));
	out.gid = static_cast<int>(action_attr(a, TESSEL_ACTION_GID));
	out.micro_batch = action_attr(a, TESSEL_ACTION_MICRO_BATCH);
	out.peer = static_cast<int>(action_attr(a, TESSEL_ACTION_PEER));
	out.peer_gid = static_cast<int>(action_attr(a, TESSEL_ACTION_PEER_GID));
	out.step = action_attr(a, TESSEL_ACTION_STEP);
	out.latency = action_attr(a, TESSEL_ACTION_LATENCY);
	return out;
}

// Owner of a C schedule, shared by a Schedule and its ranges and iterators.
struct ScheduleHolder {
	explicit ScheduleHolder(tessel_schedule *p) noexcept : ptr(p) {}
	~ScheduleHolder() { tessel_schedule_free(ptr); }
	ScheduleHolder(const ScheduleHolder &) = delete;
	ScheduleHolder &operator=(const ScheduleHolder &) = delete;
	tessel_schedule *ptr;
	// held shared by every read of the Schedule (and while a range or
	// iterator is made), exclusively by a change (since 1.7.9)
	mutable std::shared_mutex lock;
	// ranges and iterators alive (ViewRef): a change is refused while
	// there are any (a write under way on another thread is waited for)
	std::atomic<long> views{0};
};
using ScheduleRef = std::shared_ptr<ScheduleHolder>;

// The share of a range or an iterator in its schedule: counted in the
// holder's views while it holds one.
class ViewRef {
public:
	ViewRef() noexcept = default;
	explicit ViewRef(ScheduleRef r) noexcept : ref_(std::move(r))
	{
		if (ref_)
			ref_->views.fetch_add(1);
	}
	ViewRef(const ViewRef &o) noexcept : ref_(o.ref_)
	{
		if (ref_)
			ref_->views.fetch_add(1);
	}
	ViewRef(ViewRef &&o) noexcept : ref_(std::move(o.ref_)) {}
	ViewRef &operator=(ViewRef o) noexcept
	{
		std::swap(ref_, o.ref_);
		return *this;
	}
	~ViewRef()
	{
		if (ref_)
			ref_->views.fetch_sub(1);
	}
	ScheduleHolder *operator->() const noexcept { return ref_.get(); }
	explicit operator bool() const noexcept { return ref_ != nullptr; }
	const ScheduleRef &ref() const noexcept { return ref_; }

private:
	ScheduleRef ref_;
};

// The schedules this thread is writing (Schedule::write, whose stream is
// the caller's code): a change of one of them from that stream would
// wait for the write's own lock for ever, so it throws instead.
struct WritingScope {
	explicit WritingScope(const ScheduleHolder *h) noexcept : held(h), prev(top()) { top() = this; }
	~WritingScope() { top() = prev; }
	WritingScope(const WritingScope &) = delete;
	WritingScope &operator=(const WritingScope &) = delete;
	static bool holds(const ScheduleHolder *h) noexcept
	{
		for (const WritingScope *s = top(); s; s = s->prev)
			if (s->held == h)
				return true;
		return false;
	}

private:
	static const WritingScope *&top() noexcept
	{
		thread_local const WritingScope *t = nullptr;
		return t;
	}
	const ScheduleHolder *held;
	const WritingScope *prev;
};

// Traits binding a C iterator type to its functions and the copied value.
struct EntryTraits {
	using c_iter = tessel_iter;
	using c_item = tessel_entry;
	using value_type = Entry;
	static int create(tessel_iter **out, const tessel_schedule *s, int device)
	{
		return tessel_iter_new(out, s, device);
	}
	static int next(const tessel_entry **out, tessel_iter *it)
	{
		return tessel_iter_next(out, it);
	}
	static void destroy(tessel_iter *it) { tessel_iter_free(it); }
	static Entry copy(const tessel_entry *e) { return copy_entry(e); }
	static constexpr const char *new_name = "tessel_iter_new";
	static constexpr const char *next_name = "tessel_iter_next";
};

struct ActionTraits {
	using c_iter = tessel_action_iter;
	using c_item = tessel_action;
	using value_type = Action;
	static int create(tessel_action_iter **out, const tessel_schedule *s, int device)
	{
		return tessel_action_iter_new(out, s, device);
	}
	static int next(const tessel_action **out, tessel_action_iter *it)
	{
		return tessel_action_iter_next(out, it);
	}
	static void destroy(tessel_action_iter *it) { tessel_action_iter_free(it); }
	static Action copy(const tessel_action *a) { return copy_action(a); }
	static constexpr const char *new_name = "tessel_action_iter_new";
	static constexpr const char *next_name = "tessel_action_iter_next";
};

} // namespace detail

// A move-only RAII wrapper over a C iterator (tessel_iter or
// tessel_action_iter). next() copies the next item out, or returns false
// after the last one. It shares the ownership of its schedule, so it stays
// valid whatever becomes of the Schedule it came from. Made by
// Schedule::entry_iterator and Schedule::action_iterator.
template <typename Traits>
class BasicIterator {
public:
	using value_type = typename Traits::value_type;

	// (made and released under the schedule's lock, shared: a change
	// waits for the one and is refused while the iterator lives)
	BasicIterator(detail::ScheduleRef schedule, int device) : ref_(std::move(schedule))
	{
		if (!ref_)
			detail::empty_handle("Schedule");
		std::shared_lock<std::shared_mutex> held(ref_->lock);
		if (!ref_->ptr)
			detail::empty_handle("Schedule");
		typename Traits::c_iter *it = nullptr;
		detail::check(Traits::create(&it, ref_->ptr, device), Traits::new_name);
		ptr_.reset(it);
	}
	~BasicIterator() { release(); }

	BasicIterator(BasicIterator &&) noexcept = default;
	BasicIterator &operator=(BasicIterator &&o) noexcept
	{
		if (this != &o) {
			release();
			ref_ = std::move(o.ref_);
			ptr_ = std::move(o.ptr_);
		}
		return *this;
	}
	BasicIterator(const BasicIterator &) = delete;
	BasicIterator &operator=(const BasicIterator &) = delete;

	bool next(value_type &out)
	{
		if (!ptr_)
			detail::empty_handle("Iterator");
		const typename Traits::c_item *item = nullptr;
		int rc = Traits::next(&item, ptr_.get());
		if (rc == TESSEL_ITEROVER)
			return false;
		detail::check(rc, Traits::next_name);
		out = Traits::copy(item);
		return true;
	}

	typename Traits::c_iter *get() const noexcept { return ptr_.get(); }

private:
	struct Free {
		void operator()(typename Traits::c_iter *p) const noexcept { Traits::destroy(p); }
	};
	void release() noexcept
	{
		if (ptr_ && ref_) {
			std::shared_lock<std::shared_mutex> held(ref_->lock);
			ptr_.reset();
		}
		ptr_.reset();
	}
	detail::ViewRef ref_; // declared first: released after the C iterator
	std::unique_ptr<typename Traits::c_iter, Free> ptr_;
};

using EntryIterator = BasicIterator<detail::EntryTraits>;
using ActionIterator = BasicIterator<detail::ActionTraits>;

// A single-pass input range over a schedule's entries or actions, for
// range-for. Each begin() starts a new C iterator. The range and its
// iterators share the ownership of the schedule: none of them can outlive
// it. Dereferencing or advancing the end iterator throws tessel::Error
// (TESSEL_ITEROVER).
template <typename Traits>
class Range {
public:
	using value_type = typename Traits::value_type;

	class iterator {
	public:
		using iterator_category = std::input_iterator_tag;
		using value_type = typename Traits::value_type;
		using difference_type = std::ptrdiff_t;
		using pointer = const value_type *;
		using reference = const value_type &;

		iterator() = default;
		reference operator*() const { return live().current; }
		pointer operator->() const { return &live().current; }
		iterator &operator++()
		{
			State &st = live();
			if (!st.it.next(st.current))
				state_.reset();
			return *this;
		}
		void operator++(int) { ++*this; }
		friend bool operator==(const iterator &a, const iterator &b)
		{
			return a.state_ == b.state_;
		}
		friend bool operator!=(const iterator &a, const iterator &b) { return !(a == b); }

	private:
		friend class Range;
		struct State {
			State(detail::ScheduleRef s, int device) : it(std::move(s), device) {}
			BasicIterator<Traits> it;
			value_type current;
		};
		State &live() const
		{
			if (!state_)
				throw Error(TESSEL_ITEROVER,
					    "tessel::Range: the end iterator has no item");
			return *state_;
		}
		explicit iterator(std::shared_ptr<State> st) : state_(std::move(st))
		{
			if (!state_->it.next(state_->current))
				state_.reset();
		}
		std::shared_ptr<State> state_;
	};

	Range(detail::ScheduleRef schedule, int device)
		: schedule_(std::move(schedule)), device_(device)
	{
		if (!schedule_ || !schedule_->ptr)
			detail::empty_handle("Schedule");
	}

	iterator begin() const
	{
		return iterator(std::make_shared<typename iterator::State>(schedule_.ref(), device_));
	}
	iterator end() const { return iterator(); }

	// Everything at once.
	std::vector<value_type> to_vector() const
	{
		std::vector<value_type> out;
		for (const auto &v : *this)
			out.push_back(v);
		return out;
	}

private:
	detail::ViewRef schedule_;
	int device_;
};

using EntryRange = Range<detail::EntryTraits>;
using ActionRange = Range<detail::ActionTraits>;

// ---------------------------------------------------------------------------
// Schedule
// ---------------------------------------------------------------------------

class Schedule {
public:
	// Take ownership of a C schedule (NULL gives an empty handle).
	static Schedule adopt(tessel_schedule *s) { return Schedule(s); }

	// An empty schedule of `micro_batches` for a copy of `graph`.
	static Schedule empty(const Graph &graph, detail::Exact<int64_t> micro_batches)
	{
		tessel_schedule *s = nullptr;
		auto held = graph.lock();
		detail::check(tessel_schedule_new(&s, graph.get(), micro_batches),
			      "tessel_schedule_new");
		return Schedule(s);
	}

	static Schedule from_json(const std::string &text)
	{
		tessel_schedule *s = nullptr;
		detail::check(tessel_schedule_from_json(&s, text.data(), text.size()),
			      "tessel_schedule_from_json");
		return Schedule(s);
	}

	static Schedule from_file(const std::string &path)
	{
		tessel_schedule *s = nullptr;
		detail::check(tessel_schedule_from_file(&s, detail::c_text(path, "tessel_schedule_from_file")),
			      "tessel_schedule_from_file");
		return Schedule(s);
	}

	Schedule(Schedule &&) noexcept = default;
	Schedule &operator=(Schedule &&) noexcept = default;
	Schedule(const Schedule &) = delete;
	Schedule &operator=(const Schedule &) = delete;

	// Throws tessel::Error (TESSEL_EINVAL) while a range or iterator of
	// this schedule is alive: it would see the change half-way.
	void set_step(detail::Exact<int> gid, detail::Exact<int64_t> micro_batch, detail::Exact<int64_t> step)
	{
		auto held = changing();
		tessel_schedule *s = get();
		if (ptr_->views.load() > 0)
			throw Error(TESSEL_EINVAL, "tessel::Schedule::set_step: a range or "
						   "iterator of this schedule is alive");
		detail::check(tessel_schedule_set_step(s, gid, micro_batch, step),
			      "tessel_schedule_set_step");
	}

	// What micro-batch `micro_batch` of block `gid` does with its
	// activation (since 1.6): Recompute and Offload need the block to
	// declare that alternative (tessel::Error TESSEL_EINVAL otherwise);
	// Offload takes the start steps of its two copies, the other choices
	// ignore them. validate() checks the result. Throws tessel::Error
	// (TESSEL_EINVAL) while a range or iterator of this schedule is alive.
	template <class G, detail::if_integers<G> = 0>
	void set_choice(G block, detail::Exact<int64_t> micro_batch, Choice choice, detail::Exact<int64_t> offload_step = 0,
			detail::Exact<int64_t> reload_step = 0)
	{
		int gid = detail::exact<int>(block, "tessel::Schedule::set_choice: gid");
		auto held = changing();
		tessel_schedule *s = get();
		if (ptr_->views.load() > 0)
			throw Error(TESSEL_EINVAL, "tessel::Schedule::set_choice: a range or "
						   "iterator of this schedule is alive");
		detail::check(tessel_schedule_set_choice(s, gid, micro_batch,
							 static_cast<tessel_choice>(choice),
							 offload_step, reload_step),
			      "tessel_schedule_set_choice");
	}

	// The same by block name (tessel::Error TESSEL_ENOTFOUND for an
	// unknown name).
	void set_choice(const std::string &block, detail::Exact<int64_t> micro_batch, Choice choice,
			detail::Exact<int64_t> offload_step = 0, detail::Exact<int64_t> reload_step = 0)
	{
		set_choice(find(block), micro_batch, choice, offload_step, reload_step);
	}

	// Id of the block called `name` in the schedule's graph.
	int find(const std::string &name) const
	{
		auto held = reading();
		const tessel_graph *g = nullptr;
		detail::check(tessel_schedule_graph(&g, get()), "tessel_schedule_graph");
		int gid = -1;
		detail::check(tessel_graph_find(&gid, g, detail::c_text(name, "tessel_graph_find")), "tessel_graph_find");
		return gid;
	}

	// Throws tessel::Error (code TESSEL_EVIOLATION) naming the first violation.
	void validate() const
	{
		auto held = reading();
		detail::check(tessel_schedule_validate(get()), "tessel_schedule_validate");
	}

	int64_t get(tessel_schedule_attr a) const
	{
		auto held = reading();
		int64_t v = 0;
		detail::check(tessel_schedule_get(&v, get(), a), "tessel_schedule_get");
		return v;
	}

	int64_t devices() const { return get(TESSEL_SCHED_NDEVICES); }
	int64_t blocks() const { return get(TESSEL_SCHED_NBLOCKS); }
	int64_t micro_batches() const { return get(TESSEL_SCHED_NMICROS); }
	int64_t size() const { return get(TESSEL_SCHED_NENTRIES); }
	int64_t makespan() const { return get(TESSEL_SCHED_MAKESPAN); }
	// P_k: steps of one repetition of the steady state, which holds
	// repetend_micro_batches() (k) micro-batches
	int64_t period() const { return get(TESSEL_SCHED_PERIOD); }
	// k (0 for an empty schedule)
	int64_t repetend_micro_batches() const
	{
		return get(TESSEL_SCHED_REPETEND_MICRO_BATCHES);
	}
	// P_k / k: steps per micro-batch in the steady state
	double period_per_micro_batch() const
	{
		int64_t k = repetend_micro_batches();
		return static_cast<double>(period()) / static_cast<double>(k > 0 ? k : 1);
	}
	int64_t resource_bound() const { return get(TESSEL_SCHED_RESOURCE_BOUND); }
	bool period_optimal() const { return get(TESSEL_SCHED_PERIOD_OPTIMAL) != 0; }
	bool makespan_optimal() const { return get(TESSEL_SCHED_MAKESPAN_OPTIMAL) != 0; }
	int64_t lower_bound() const { return get(TESSEL_SCHED_LOWER_BOUND); }
	int64_t repetend_begin() const { return get(TESSEL_SCHED_REPETEND_BEGIN); }
	int64_t repetend_end() const { return get(TESSEL_SCHED_REPETEND_END); }
	int64_t depth() const { return get(TESSEL_SCHED_DEPTH); }
	// work units the search spent (TESSEL_OPT_WORK_LIMIT; since 1.2)
	int64_t work() const { return get(TESSEL_SCHED_WORK); }
	// of work(), the units spent on the period proof beside the budget
	int64_t proof_work() const { return get(TESSEL_SCHED_PROOF_WORK); }

	double search_seconds() const
	{
		auto held = reading();
		double v = 0;
		detail::check(tessel_schedule_search_seconds(&v, get()),
			      "tessel_schedule_search_seconds");
		return v;
	}

	int64_t peak_memory(detail::Exact<int> device) const
	{
		auto held = reading();
		int64_t v = 0;
		detail::check(tessel_schedule_peak_memory(&v, get(), device),
			      "tessel_schedule_peak_memory");
		return v;
	}

	// Name of a block of the schedule's graph.
	std::string block_name(detail::Exact<int> gid) const
	{
		auto held = reading();
		const tessel_graph *g = nullptr;
		detail::check(tessel_schedule_graph(&g, get()), "tessel_schedule_graph");
		const char *name = nullptr;
		detail::check(tessel_graph_block_name(&name, g, gid), "tessel_graph_block_name");
		return name;
	}

	// Entries on `device` in time order, or every entry with all_devices.
	// The range shares the ownership of the schedule (safe on a
	// temporary, and after this Schedule is moved or destroyed).
	EntryRange entries(detail::Exact<int> device = TESSEL_ALL_DEVICES) const
	{
		return EntryRange(ref(), device);
	}

	// The action stream (compute, send, receive) of `device`.
	ActionRange actions(detail::Exact<int> device) const { return ActionRange(ref(), device); }

	// Explicit iterators (next(item) until false), owning like the ranges.
	EntryIterator entry_iterator(detail::Exact<int> device = TESSEL_ALL_DEVICES) const
	{
		return EntryIterator(ref(), device);
	}
	ActionIterator action_iterator(detail::Exact<int> device) const
	{
		return ActionIterator(ref(), device);
	}

	std::string to_json() const { return text(tessel_schedule_to_json, "tessel_schedule_to_json"); }
	std::string to_text() const { return text(tessel_schedule_to_text, "tessel_schedule_to_text"); }
	std::string to_svg() const { return text(tessel_schedule_to_svg, "tessel_schedule_to_svg"); }
	std::string to_actions_json() const
	{
		return text(tessel_schedule_to_actions_json, "tessel_schedule_to_actions_json");
	}

	std::string to_torch_csv(detail::Flag with_comms = false) const
	{
		auto held = reading();
		char *out = nullptr;
		detail::check(tessel_schedule_to_torch_csv(&out, get(), with_comms ? 1 : 0),
			      "tessel_schedule_to_torch_csv");
		return detail::take_text(out);
	}

	// step_us 0 (the default, as in the tessel command line): the
	// placement's step in its unit of time, else 1000 microseconds (1 ms)
	// per step.
	std::string to_trace_json(detail::Real step_us = 0.0) const
	{
		auto held = reading();
		char *out = nullptr;
		detail::check(tessel_schedule_to_trace_json(&out, get(), step_us),
			      "tessel_schedule_to_trace_json");
		return detail::take_text(out);
	}

	// The export in `format` written to `os` in pieces as it is made
	// (tessel_schedule_write, since 1.3): a large schedule is never held
	// whole. step_us is for TESSEL_FORMAT_TRACE only. A stream that fails
	// (badbit or failbit) ends the export with tessel::Error
	// (TESSEL_EIO); an exception the stream throws is thrown again.
	void write(std::ostream &os, tessel_format format, detail::Real step_us = 0.0) const
	{
		struct sink {
			std::ostream *os;
			std::exception_ptr error;
		} k{&os, nullptr};
		auto put = [](void *payload, const char *data, size_t length) -> int {
			sink *s = static_cast<sink *>(payload);
			try {
				s->os->write(data, static_cast<std::streamsize>(length));
				return s->os->good() ? 0 : 1;
			} catch (...) {
				s->error = std::current_exception();
				return 1;
			}
		};
		int rc;
		{
			// (kept alive should the stream drop this Schedule)
			detail::ScheduleRef keep = ptr_;
			auto held = reading();
			tessel_schedule *s = get();
			detail::WritingScope writing(keep.get());
			rc = tessel_schedule_write(s, format, step_us, put, &k);
		}
		if (k.error)
			std::rethrow_exception(k.error);
		detail::check(rc, "tessel_schedule_write");
		// what the stream still buffers reaches its device, or the
		// failure is said (since 1.8.8)
		os.flush();
		if (!os.good())
			throw Error(TESSEL_EIO, "tessel_schedule_write: the stream failed "
						"when flushed");
	}

	// The C schedule (borrowed); throws tessel::Error for an empty handle.
	tessel_schedule *get() const
	{
		if (!ptr_ || !ptr_->ptr)
			detail::empty_handle("Schedule");
		return ptr_->ptr;
	}

	// Give up ownership: the caller frees the result with
	// tessel_schedule_free and the Schedule becomes empty. NULL when
	// empty; throws tessel::Error (TESSEL_EINVAL) while a range or
	// iterator of the schedule is alive.
	tessel_schedule *release()
	{
		if (!ptr_)
			return nullptr;
		tessel_schedule *s;
		{
			not_being_written("tessel::Schedule::release");
			std::unique_lock<std::shared_mutex> held(ptr_->lock);
			if (ptr_->views.load() > 0)
				throw Error(TESSEL_EINVAL, "tessel::Schedule::release: a range or "
							   "iterator of this schedule is alive");
			s = ptr_->ptr;
			ptr_->ptr = nullptr;
		}
		ptr_.reset();
		return s;
	}
	explicit operator bool() const noexcept { return ptr_ && ptr_->ptr; }

private:
	explicit Schedule(tessel_schedule *s)
		: ptr_(s ? std::make_shared<detail::ScheduleHolder>(s) : nullptr) {}

	// The schedule held for a read (shared) or a change (exclusive).
	std::shared_lock<std::shared_mutex> reading() const
	{
		if (!ptr_)
			detail::empty_handle("Schedule");
		return std::shared_lock<std::shared_mutex>(ptr_->lock);
	}
	std::unique_lock<std::shared_mutex> changing() const
	{
		if (!ptr_)
			detail::empty_handle("Schedule");
		not_being_written("tessel::Schedule: a change");
		return std::unique_lock<std::shared_mutex>(ptr_->lock);
	}
	void not_being_written(const char *what) const
	{
		if (detail::WritingScope::holds(ptr_.get()))
			throw Error(TESSEL_EINVAL, std::string(what) +
							   ": the schedule is being written by "
							   "Schedule::write on this thread (its "
							   "stream cannot change it)");
	}

	const detail::ScheduleRef &ref() const
	{
		if (!ptr_ || !ptr_->ptr)
			detail::empty_handle("Schedule");
		return ptr_;
	}

	std::string text(int (*fn)(char **, const tessel_schedule *), const char *what) const
	{
		auto held = reading();
		char *out = nullptr;
		detail::check(fn(&out, get()), what);
		return detail::take_text(out);
	}

	detail::ScheduleRef ptr_;
};

// ---------------------------------------------------------------------------
// Search
// ---------------------------------------------------------------------------

// Search with these options: their progress callback's exception, if it
// threw, comes out of here; their cancel token (from SearchOptions)
// applies.
inline Schedule search(const Graph &graph, const Options &options)
{
	// a copy made under the graph's lock: another thread may change the
	// graph while the search runs
	Graph copy = graph.clone();
	const tessel_graph *g = copy.get();
	tessel_schedule *s = nullptr;
	detail::CallbackErrorScope callback_error;
	int rc;
	{
		Options::InUse in_use(options);
		rc = tessel_search(&s, g, in_use.get());
	}
	Schedule result = Schedule::adopt(s); // freed if anything throws below
	if (std::exception_ptr e = callback_error.take())
		std::rethrow_exception(e);
	detail::check(rc, "tessel_search");
	return result;
}

inline Schedule search(const Graph &graph, const SearchOptions &options = SearchOptions())
{
	return search(graph, Options(options));
}

// The search under each memory limit of `limits` (every device's limit;
// TESSEL_UNLIMITED: none), in their order: an empty Schedule (false as a
// bool) where none was found; the makespans never grow with the limit
// (tessel_search_sweep, since 1.7). The options apply to each limit's
// search; a cancel keeps what the tighter limits found. Throws as search
// when no limit has a schedule, tessel::Error (TESSEL_ERANGE) for 0 or more
// than 1024 limits or a limit out of range.
inline std::vector<Schedule> search_sweep(const Graph &graph,
					  const std::vector<int64_t> &limits,
					  const Options &options)
{
	Graph copy = graph.clone(); // (as search)
	const tessel_graph *g = copy.get();
	std::vector<tessel_schedule *> out(limits.empty() ? 1 : limits.size(), nullptr);
	std::vector<Schedule> result;
	result.reserve(limits.size()); // (no allocation once they exist)
	detail::CallbackErrorScope callback_error;
	int rc;
	{
		Options::InUse in_use(options);
		rc = tessel_search_sweep(out.data(), g, limits.data(), limits.size(), in_use.get());
	}
	for (size_t i = 0; i < limits.size(); i++)
		result.push_back(Schedule::adopt(rc == TESSEL_OK ? out[i] : nullptr));
	if (std::exception_ptr e = callback_error.take())
		std::rethrow_exception(e);
	detail::check(rc, "tessel_search_sweep");
	return result;
}

inline std::vector<Schedule> search_sweep(const Graph &graph,
					  const std::vector<int64_t> &limits,
					  const SearchOptions &options = SearchOptions())
{
	return search_sweep(graph, limits, Options(options));
}

// ---------------------------------------------------------------------------
// Model profiles and the exploration of placements (since 1.5)
// ---------------------------------------------------------------------------

// A model profile (doc/formats.md, "Model profile").
class Model {
public:
	static Model from_json(const std::string &text)
	{
		tessel_model *m = nullptr;
		detail::check(tessel_model_from_json(&m, text.data(), text.size()),
			      "tessel_model_from_json");
		return Model(m);
	}

	static Model from_file(const std::string &path)
	{
		tessel_model *m = nullptr;
		detail::check(tessel_model_from_file(&m, detail::c_text(path, "tessel_model_from_file")),
			      "tessel_model_from_file");
		return Model(m);
	}

	int64_t get(tessel_model_attr a) const
	{
		int64_t v = 0;
		detail::check(tessel_model_get(&v, get(), a), "tessel_model_get");
		return v;
	}
	int devices() const { return static_cast<int>(get(TESSEL_MODEL_DEVICES)); }
	int layers() const { return static_cast<int>(get(TESSEL_MODEL_LAYERS)); }
	int64_t micro_batches() const { return get(TESSEL_MODEL_MICRO_BATCHES); }
	bool inference() const { return get(TESSEL_MODEL_INFERENCE) != 0; }
	std::string unit() const
	{
		const char *u = nullptr;
		detail::check(tessel_model_units(&u, nullptr, get()), "tessel_model_units");
		return u;
	}
	std::string memory_unit() const
	{
		const char *u = nullptr;
		detail::check(tessel_model_units(nullptr, &u, get()), "tessel_model_units");
		return u;
	}

	// The C model; throws tessel::Error for an empty (moved-from) handle.
	const tessel_model *get() const
	{
		if (!ptr_)
			detail::empty_handle("Model");
		return ptr_.get();
	}

	Model(Model &&) noexcept = default;
	Model &operator=(Model &&) noexcept = default;
	Model(const Model &) = delete;
	Model &operator=(const Model &) = delete;

private:
	explicit Model(tessel_model *m) : ptr_(m) {}
	struct Free {
		void operator()(tessel_model *m) const { tessel_model_free(m); }
	};
	std::unique_ptr<tessel_model, Free> ptr_;
};

// One placement family's result (tessel::explore), in rank order: time
// per training step (inference: latency) in the model's unit and memory in
// its memory unit; has_schedule false when `reason` says why there is
// none. The placement and schedule are independent copies.
struct Candidate {
	std::string family;
	std::string reason;
	bool has_schedule = false;
	double time = -1, peak_memory = -1;
	double speedup_1f1b = 0, speedup_gpipe = 0; // 0: unknown
	int stages = 0, chunks = 0, tensor_parallel = 0, replicas = 0;
	int64_t micro_batches = 0, work = 0;
	bool baseline = false;
	double seconds = 0;
	std::vector<double> device_memory;
	std::shared_ptr<Graph> placement;    // null: no placement
	std::shared_ptr<Schedule> schedule;  // null: no schedule
};

namespace detail {
struct ExploreFree {
	void operator()(tessel_explore *x) const { tessel_explore_free(x); }
};
} // namespace detail

// What explore's progress callback receives as each candidate is done.
struct ExploreEvent {
	std::string family;
	double time = -1;  // time per training step (inference: latency); -1: no schedule
	int64_t work = 0;  // work units its search spent
	std::string reason; // "" or why it has no schedule
	size_t done = 0, total = 0;
};

// Return true to go on, false to stop the exploration (the candidates done
// are kept). Called from the thread that searched the candidate, one call
// at a time; an exception thrown here stops the exploration and comes out
// of tessel::explore unchanged.
using ExploreCallback = std::function<bool(const ExploreEvent &)>;

namespace detail {
struct ExploreProgress {
	ExploreCallback fn;
	std::exception_ptr error; // (one call at a time)

	static int trampoline(const char *family, double time, int64_t work, const char *reason,
			      size_t done, size_t total, void *payload) noexcept
	{
		auto *h = static_cast<ExploreProgress *>(payload);
		try {
			ExploreEvent e;
			e.family = family ? family : "";
			e.time = time;
			e.work = work;
			e.reason = reason ? reason : "";
			e.done = done;
			e.total = total;
			return h->fn(e) ? 0 : 1;
		} catch (...) {
			if (!h->error)
				h->error = std::current_exception();
			return 1;
		}
	}
};
} // namespace detail

// Explore the placements of `model`: every candidate, the fastest first.
// `options` as for search (micro-batches are the model's; a work limit is
// shared by the candidates; the time limit caps the whole exploration;
// threads: candidates at a time); their cancel token applies. Progress
// goes to `progress` (since 1.7.9), once per candidate: SearchOptions::
// progress, a callback of one search, is not called by an exploration,
// and one set throws tessel::Error (TESSEL_EINVAL) rather than be ignored.
inline std::vector<Candidate> explore(const Model &model,
				      const SearchOptions &so = SearchOptions(),
				      ExploreCallback progress = {})
{
	if (so.progress)
		throw Error(TESSEL_EINVAL, "tessel::explore: SearchOptions::progress is a search's "
					   "callback, not called by an exploration: give explore's "
					   "progress argument (an ExploreCallback) instead");
	tessel_explore *raw = nullptr;
	detail::check(tessel_explore_new(&raw, model.get()), "tessel_explore_new");
	std::unique_ptr<tessel_explore, detail::ExploreFree> ex(raw);
	detail::ExploreProgress events{std::move(progress), nullptr};
	if (events.fn)
		detail::check(tessel_explore_set_progress(ex.get(), &detail::ExploreProgress::trampoline,
							  &events),
			      "tessel_explore_set_progress");
	Options options(so);
	int rc;
	{
		Options::InUse in_use(options);
		rc = tessel_explore_run(ex.get(), in_use.get());
	}
	if (events.error)
		std::rethrow_exception(events.error);
	detail::check(rc, "tessel_explore_run");
	size_t n = 0;
	detail::check(tessel_explore_count(&n, ex.get()), "tessel_explore_count");
	std::vector<Candidate> out;
	for (size_t k = 0; k < n; k++) {
		Candidate c;
		const char *text = nullptr;
		detail::check(tessel_explore_family(&text, ex.get(), k), "tessel_explore_family");
		c.family = text;
		detail::check(tessel_explore_reason(&text, ex.get(), k), "tessel_explore_reason");
		c.reason = text;
		auto num = [&](tessel_explore_attr a) {
			double v = 0;
			detail::check(tessel_explore_get(&v, ex.get(), k, a), "tessel_explore_get");
			return v;
		};
		c.time = num(TESSEL_EXPLORE_TIME);
		c.has_schedule = c.time >= 0;
		c.peak_memory = num(TESSEL_EXPLORE_PEAK_MEMORY);
		c.speedup_1f1b = num(TESSEL_EXPLORE_SPEEDUP_1F1B);
		c.speedup_gpipe = num(TESSEL_EXPLORE_SPEEDUP_GPIPE);
		c.stages = static_cast<int>(num(TESSEL_EXPLORE_STAGES));
		c.chunks = static_cast<int>(num(TESSEL_EXPLORE_CHUNKS));
		c.tensor_parallel = static_cast<int>(num(TESSEL_EXPLORE_TENSOR_PARALLEL));
		c.replicas = static_cast<int>(num(TESSEL_EXPLORE_REPLICAS));
		c.micro_batches = static_cast<int64_t>(num(TESSEL_EXPLORE_MICRO_BATCHES));
		c.baseline = num(TESSEL_EXPLORE_BASELINE) != 0;
		c.work = static_cast<int64_t>(num(TESSEL_EXPLORE_WORK));
		c.seconds = num(TESSEL_EXPLORE_SECONDS);
		const tessel_graph *g = nullptr;
		if (tessel_explore_graph(&g, ex.get(), k) == TESSEL_OK) {
			tessel_graph *copy = nullptr;
			detail::check(tessel_graph_dup(&copy, g), "tessel_graph_dup");
			c.placement = std::make_shared<Graph>(Graph::adopt(copy));
		} else {
			tessel_error_clear();
		}
		if (c.has_schedule) {
			for (int d = 0; d < model.devices(); d++) {
				double v = 0;
				detail::check(tessel_explore_device_memory(&v, ex.get(), k, d),
					      "tessel_explore_device_memory");
				c.device_memory.push_back(v);
			}
			const tessel_schedule *s = nullptr;
			detail::check(tessel_explore_schedule(&s, ex.get(), k),
				      "tessel_explore_schedule");
			char *json = nullptr;
			detail::check(tessel_schedule_to_json(&json, s), "tessel_schedule_to_json");
			c.schedule = std::make_shared<Schedule>(
				Schedule::from_json(detail::take_text(json)));
		}
		out.push_back(std::move(c));
	}
	return out;
}

// The published families: (name, description).
inline std::vector<std::pair<std::string, std::string>> published_families()
{
	std::vector<std::pair<std::string, std::string>> out;
	for (size_t i = 0; i < tessel_published_count(); i++) {
		const char *name = nullptr, *desc = nullptr;
		detail::check(tessel_published_info(&name, &desc, i), "tessel_published_info");
		out.emplace_back(name, desc);
	}
	return out;
}

// The published schedule of `family` on its own placement (tessel_published).
inline Schedule published(const std::string &family, detail::Exact<int> devices, detail::Exact<int64_t> micro_batches,
			  detail::Exact<int> forward, detail::Exact<int> backward, detail::Exact<int> weight = 1, detail::Exact<int> chunks = 2,
			  detail::Exact<int> latency = 0)
{
	tessel_schedule *s = nullptr;
	detail::check(tessel_published(&s, detail::c_text(family, "tessel_published"), devices, micro_batches, forward,
				       backward, weight, chunks, latency),
		      "tessel_published");
	return Schedule::adopt(s);
}

// The published order of `family` replayed on `placement` (tessel_published_on).
inline Schedule published_on(const Graph &placement, const std::string &family,
			     detail::Exact<int64_t> micro_batches)
{
	tessel_schedule *s = nullptr;
	auto held = placement.lock();
	detail::check(tessel_published_on(&s, placement.get(), detail::c_text(family, "tessel_published_on"), micro_batches),
		      "tessel_published_on");
	return Schedule::adopt(s);
}

} // namespace tessel

#endif // TESSEL_HPP
