// The misuse catalogue of tessel.hpp: each way of holding the wrapper
// wrong either works as it reads or throws tessel::Error with a clear
// message; nothing crashes, reads freed memory or changes silently. Run
// in the sanitizer build as well (AddressSanitizer catches a read of a
// freed schedule). Prints one line per case: its name, "ok" or the
// exception it raises (code and message).
//
// SPDX-License-Identifier: MIT
#include <tessel.hpp>

#include <atomic>
#include <fstream>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

int failures = 0;

bool under_valgrind()
{
	const char *v = std::getenv("TESSEL_UNDER_VALGRIND");
	return v && std::strcmp(v, "1") == 0;
}

void require(bool cond, const std::string &what)
{
	if (!cond)
		throw std::logic_error("check failed: " + what);
}

// A case that must work: `body` runs without an exception.
void works(const char *name, const std::function<void()> &body)
{
	try {
		body();
		std::cout << "ok      " << name << '\n';
	} catch (const tessel::Error &e) {
		std::cout << "FAIL    " << name << ": unexpected tessel::Error " << e.code() << ": "
			  << e.what() << '\n';
		failures++;
	} catch (const std::exception &e) {
		std::cout << "FAIL    " << name << ": " << e.what() << '\n';
		failures++;
	}
}

// A case that must throw tessel::Error with `code` and a message holding
// `part`, and not with a message that repeats its prefix.
void raises(const char *name, int code, const char *part, const std::function<void()> &body)
{
	try {
		body();
		std::cout << "FAIL    " << name << ": no exception\n";
		failures++;
	} catch (const tessel::Error &e) {
		std::string msg = e.what();
		size_t colon = msg.find(':');
		std::string prefix = colon == std::string::npos ? msg : msg.substr(0, colon + 1);
		bool repeated = colon != std::string::npos &&
				msg.find(prefix, colon + 1) != std::string::npos;
		if (e.code() != code || msg.find(part) == std::string::npos || repeated) {
			std::cout << "FAIL    " << name << ": tessel::Error " << e.code() << " (want "
				  << code << "): " << msg << '\n';
			failures++;
		} else {
			std::cout << "raises  " << name << ": " << tessel_strerror(e.code()) << " ("
				  << e.code() << "): " << msg << '\n';
		}
	} catch (const std::exception &e) {
		std::cout << "FAIL    " << name << ": not a tessel::Error: " << e.what() << '\n';
		failures++;
	}
}

tessel::Graph small_graph() { return tessel::Graph::preset("vshape", 4, 4); }

tessel::Schedule small_schedule(int64_t n = 6)
{
	tessel::SearchOptions o;
	o.micro_batches = n;
	o.fast = true;
	return tessel::search(small_graph(), o);
}

std::vector<tessel::Entry> entries_of(const tessel::Schedule &s, int device)
{
	return s.entries(device).to_vector();
}

bool same(const std::vector<tessel::Entry> &a, const std::vector<tessel::Entry> &b)
{
	if (a.size() != b.size())
		return false;
	for (size_t i = 0; i < a.size(); i++)
		if (a[i].gid != b[i].gid || a[i].micro_batch != b[i].micro_batch ||
		    a[i].start != b[i].start || a[i].block != b[i].block)
			return false;
	return true;
}

} // namespace

// Whether a call compiles: an integer parameter takes integers only (since
// 1.7.4), so a double or a bool where C takes an int does not compile.
template <class S, class = void>
struct adds_block_with : std::false_type {
};
template <class S>
struct adds_block_with<S, std::void_t<decltype(std::declval<tessel::Graph &>().add_block(
				  "x", tessel::Kind::Forward, std::declval<S>(), 1))>>
	: std::true_type {
};
template <class D, class = void>
struct places_on : std::false_type {
};
template <class D>
struct places_on<D, std::void_t<decltype(std::declval<tessel::Graph &>().place(0, std::declval<D>()))>>
	: std::true_type {
};
template <class G, class = void>
struct reads_recompute_of : std::false_type {
};
template <class G>
struct reads_recompute_of<G, std::void_t<decltype(std::declval<const tessel::Graph &>().recompute(
				     std::declval<G>()))>> : std::true_type {
};
static_assert(adds_block_with<int>::value && adds_block_with<long long>::value &&
		      adds_block_with<size_t>::value && adds_block_with<short>::value,
	      "integers are taken");
static_assert(!adds_block_with<double>::value && !adds_block_with<float>::value &&
		      !adds_block_with<bool>::value,
	      "a double, a float or a bool is not converted to an int");
static_assert(places_on<int>::value && places_on<unsigned>::value && !places_on<double>::value,
	      "place takes an integer device");
template <class B, class = void>
struct places_on_list_of : std::false_type {
};
template <class B>
struct places_on_list_of<B, std::void_t<decltype(std::declval<tessel::Graph &>().place(0, {std::declval<B>()}))>>
	: std::true_type {
};
template <class B, class = void>
struct picks_step_of_list_of : std::false_type {
};
template <class B>
struct picks_step_of_list_of<B, std::void_t<decltype(tessel::pick_step({std::declval<B>()}))>> : std::true_type {
};
static_assert(places_on_list_of<int>::value && places_on_list_of<unsigned>::value &&
		      !places_on_list_of<bool>::value,
	      "a braced list of devices takes integers, not a bool (since 1.8.8)");
static_assert(picks_step_of_list_of<double>::value && picks_step_of_list_of<int>::value &&
		      !picks_step_of_list_of<bool>::value,
	      "a braced list of times takes numbers, not a bool (since 1.8.8)");
static_assert(reads_recompute_of<int>::value && reads_recompute_of<const char *>::value &&
		      reads_recompute_of<std::string>::value && !reads_recompute_of<double>::value,
	      "recompute by id or by name");

// SearchOptions' integer fields take integers only (since 1.7.9).
template <class V, class = void>
struct sets_micro_batches_to : std::false_type {
};
template <class V>
struct sets_micro_batches_to<V, std::void_t<decltype(std::declval<tessel::SearchOptions &>().micro_batches =
							     std::declval<V>())>> : std::true_type {
};
static_assert(sets_micro_batches_to<int>::value && sets_micro_batches_to<int64_t>::value &&
		      sets_micro_batches_to<unsigned>::value,
	      "integers are taken");
static_assert(!sets_micro_batches_to<double>::value && !sets_micro_batches_to<bool>::value &&
		      !sets_micro_batches_to<float>::value,
	      "a double or a bool is not converted to an option's integer");
template <class V, class = void>
struct sets_fast_to : std::false_type {
};
template <class V>
struct sets_fast_to<V, std::void_t<decltype(std::declval<tessel::SearchOptions &>().fast = std::declval<V>())>>
	: std::true_type {
};
template <class V, class = void>
struct presets_infer_with : std::false_type {
};
template <class V>
struct presets_infer_with<V, std::void_t<decltype(tessel::Graph::preset("mshape", 4, 6, std::declval<V>()))>>
	: std::true_type {
};
// A double parameter takes floating-point and integer values, not a bool
// (since 1.8.6).
template <class V, class = void>
struct sets_step_to : std::false_type {
};
template <class V>
struct sets_step_to<V, std::void_t<decltype(std::declval<tessel::Graph &>().set_step(std::declval<V>()))>>
	: std::true_type {
};
static_assert(sets_step_to<double>::value && sets_step_to<float>::value && sets_step_to<int>::value &&
		      !sets_step_to<bool>::value,
	      "a real parameter takes numbers, not a bool");
static_assert(sets_fast_to<bool>::value && !sets_fast_to<int>::value && !sets_fast_to<double>::value,
	      "a flag takes a bool only");
static_assert(presets_infer_with<bool>::value && !presets_infer_with<int>::value,
	      "infer takes a bool only");

int main()
{
	const auto reference = entries_of(small_schedule(), 0);
	require(!reference.empty(), "the reference schedule has entries");

	// ------------------------------------------------------------ lifetimes
	works("range-for over a temporary schedule's entries", [&] {
		std::vector<tessel::Entry> got;
		tessel::SearchOptions o;
		o.micro_batches = 6;
		o.fast = true;
		for (auto &e : tessel::search(small_graph(), o).entries(0))
			got.push_back(e);
		require(same(got, reference), "the same entries as a named schedule");
	});
	works("range-for over a temporary schedule's actions", [&] {
		size_t n = 0;
		for (auto &a : small_schedule().actions(1))
			n += a.kind == tessel::ActionKind::Compute;
		require(n == reference.size(), "one compute action per entry of the device");
	});
	works("preset memory scales with the devices; min_memory", [&] {
		auto g = tessel::Graph::preset("mshape", 64);
		require(g.memory_limit(0) == 96, "3 per 2 devices");
		auto m = g.min_memory(16);
		require(m.first == 1 && m.second, "one unit, proven");
	});
	works("explore: candidates outlive the exploration and the model", [&] {
		std::vector<tessel::Candidate> cs;
		{
			auto m = tessel::Model::from_json(
				"{\"unit\": \"ms\", \"devices\": 2, \"memory_per_device\": 10, "
				"\"micro_batches\": 4, \"layers\": ["
				"{\"name\": \"a\", \"forward\": 1, \"backward\": 2, \"activation\": 1, \"parameters\": 1},"
				"{\"name\": \"b\", \"forward\": 1, \"backward\": 2, \"activation\": 1, \"parameters\": 1},"
				"{\"name\": \"c\", \"forward\": 1, \"backward\": 2, \"activation\": 1, \"parameters\": 1},"
				"{\"name\": \"d\", \"forward\": 1, \"backward\": 2, \"activation\": 1, \"parameters\": 1}]}");
			tessel::SearchOptions o;
			o.fast = true;
			o.threads = 2;
			cs = tessel::explore(m, o);
		}
		require(!cs.empty() && cs[0].has_schedule, "a best candidate");
		require(cs[0].schedule && cs[0].schedule->get(TESSEL_SCHED_MAKESPAN) > 0,
			"its schedule is its own copy");
		require(cs[0].placement && cs[0].placement->devices() == 2, "its placement too");
	});
	works("published: a family's schedule, replayed on its own placement", [&] {
		auto s = tessel::published("zb-v", 4, 8, 1, 2, 1);
		const tessel_graph *g = nullptr;
		require(tessel_schedule_graph(&g, s.get()) == TESSEL_OK, "its graph");
		tessel_graph *copy = nullptr;
		require(tessel_graph_dup(&copy, g) == TESSEL_OK, "a copy");
		auto placement = tessel::Graph::adopt(copy);
		auto again = tessel::published_on(placement, "zb-v", s.get(TESSEL_SCHED_NMICROS));
		require(again.get(TESSEL_SCHED_MAKESPAN) == s.get(TESSEL_SCHED_MAKESPAN),
			"the same makespan");
		require(tessel::published_families().size() == tessel_published_count(), "all listed");
	});
	works("search_sweep: makespans that never grow with the limit", [&] {
		auto g = tessel::Graph::preset("vshape", 4, TESSEL_UNLIMITED);
		tessel::SearchOptions o;
		o.work_limit = 100;
		auto out = tessel::search_sweep(g, {4, 2, TESSEL_UNLIMITED, 0}, o);
		require(out.size() == 4 && out[0] && out[1] && out[2] && !out[3], "found but at 0");
		require(out[1].get(TESSEL_SCHED_MAKESPAN) >= out[0].get(TESSEL_SCHED_MAKESPAN) &&
				out[0].get(TESSEL_SCHED_MAKESPAN) >= out[2].get(TESSEL_SCHED_MAKESPAN),
			"non-increasing");
	});
	raises("search_sweep: no limits", TESSEL_ERANGE, "limits", [&] {
		tessel::search_sweep(tessel::Graph::preset("vshape", 4, 3), {});
	});
	raises("search_sweep: a negative limit", TESSEL_ERANGE, "limit 1", [&] {
		tessel::search_sweep(tessel::Graph::preset("vshape", 4, 3), {3, -7});
	});
	raises("published: an unknown family", TESSEL_ENOTFOUND, "nosuch", [&] {
		tessel::published("nosuch", 4, 8, 1, 2);
	});
	works("explore: its progress callback sees every candidate, and stops it", [&] {
		auto m = tessel::Model::from_json(
			"{\"unit\": \"ms\", \"devices\": 2, \"memory_per_device\": 10, "
			"\"micro_batches\": 4, \"layers\": ["
			"{\"name\": \"a\", \"forward\": 1, \"backward\": 2, \"activation\": 1, \"parameters\": 1},"
			"{\"name\": \"b\", \"forward\": 1, \"backward\": 2, \"activation\": 1, \"parameters\": 1}]}");
		tessel::SearchOptions o;
		o.fast = true;
		o.threads = 1;
		size_t calls = 0, total = 0;
		auto all = tessel::explore(m, o, [&](const tessel::ExploreEvent &e) {
			calls++;
			total = e.total;
			require(!e.family.empty() && e.done == calls, "a family, counted");
			return true;
		});
		require(calls == total && calls > 0, "one call per candidate searched");
		calls = 0;
		bool searched_after = false;
		auto some = tessel::explore(m, o, [&](const tessel::ExploreEvent &e) {
			if (++calls > 2 && e.reason.find("not searched") == std::string::npos)
				searched_after = true;
			return calls < 2;
		});
		require(!searched_after, "no candidate searched after the stop (the rest reported so)");
		bool caught = false;
		try {
			(void)tessel::explore(m, o, [](const tessel::ExploreEvent &) -> bool {
				throw std::out_of_range("mine");
			});
		} catch (const std::out_of_range &e) {
			caught = std::string(e.what()) == "mine";
		}
		require(caught, "its exception comes out unchanged");
	});
	raises("explore: SearchOptions::progress is refused, not ignored", TESSEL_EINVAL, "ExploreCallback", [&] {
		auto m = tessel::Model::from_json(
			"{\"unit\": \"ms\", \"devices\": 2, \"memory_per_device\": 10, "
			"\"micro_batches\": 4, \"layers\": ["
			"{\"name\": \"a\", \"forward\": 1, \"backward\": 2, \"activation\": 1, \"parameters\": 1},"
			"{\"name\": \"b\", \"forward\": 1, \"backward\": 2, \"activation\": 1, \"parameters\": 1}]}");
		tessel::SearchOptions o;
		o.progress = [](const tessel::Progress &) { return true; };
		(void)tessel::explore(m, o);
	});
	raises("a moved-from Model", TESSEL_EINVAL, "the handle is empty", [&] {
		auto m = tessel::Model::from_json(
			"{\"unit\": \"ms\", \"devices\": 2, \"memory_per_device\": 10, "
			"\"micro_batches\": 4, \"layers\": ["
			"{\"name\": \"a\", \"forward\": 1, \"backward\": 2, \"activation\": 1, \"parameters\": 1}]}");
		auto n = std::move(m);
		(void)m.devices();
	});
	raises("explore: a model without layers", TESSEL_EPARSE, "layers", [&] {
		tessel::Model::from_json("{\"unit\": \"ms\", \"devices\": 2, "
					 "\"memory_per_device\": 10, \"micro_batches\": 4}");
	});
	works("range kept after its schedule is destroyed", [&] {
		tessel::EntryRange r = [] { return small_schedule().entries(0); }();
		require(same(r.to_vector(), reference), "entries still readable");
	});
	works("range kept after its schedule is reassigned", [&] {
		tessel::Schedule s = small_schedule();
		auto r = s.entries(0);
		s = small_schedule(9);
		require(same(r.to_vector(), reference), "the range reads the old schedule");
		require(s.micro_batches() == 9, "the Schedule holds the new one");
	});
	works("range kept after its schedule is moved away and destroyed", [&] {
		tessel::Schedule s = small_schedule();
		auto r = s.entries(0);
		{ tessel::Schedule t = std::move(s); }
		require(same(r.to_vector(), reference), "entries still readable");
	});
	works("iterator kept after its range and schedule are gone", [&] {
		tessel::EntryRange::iterator it;
		{
			auto r = small_schedule().entries(0);
			it = r.begin();
		}
		std::vector<tessel::Entry> got;
		for (; it != tessel::EntryRange::iterator(); ++it)
			got.push_back(*it);
		require(same(got, reference), "entries still readable");
	});
	works("explicit iterator of a temporary schedule", [&] {
		tessel::EntryIterator it = small_schedule().entry_iterator(0);
		tessel::Entry e;
		std::vector<tessel::Entry> got;
		while (it.next(e))
			got.push_back(e);
		require(same(got, reference), "entries still readable");
	});
	works("explicit action iterator of a temporary schedule", [&] {
		tessel::ActionIterator it = small_schedule().action_iterator(0);
		tessel::Action a;
		size_t n = 0;
		while (it.next(a))
			n++;
		require(n >= reference.size(), "every action");
	});
	works("two passes over one range", [&] {
		auto r = small_schedule().entries(0);
		require(same(r.to_vector(), r.to_vector()), "each begin() starts again");
	});

	// ------------------------------------------------------------ end iterator
	raises("dereferencing the end iterator", TESSEL_ITEROVER, "end iterator", [&] {
		auto r = small_schedule().entries(0);
		auto it = r.end();
		(void)it->start;
	});
	raises("advancing past the end", TESSEL_ITEROVER, "end iterator", [&] {
		auto r = small_schedule().entries(0);
		auto it = r.begin();
		while (it != r.end())
			++it;
		++it;
	});
	raises("entries of a device that does not exist", TESSEL_ENOTFOUND, "tessel_iter_new", [&] {
		(void)small_schedule().entries(99).to_vector();
	});
	raises("actions of every device at once", TESSEL_ENOTFOUND, "tessel_action_iter_new", [&] {
		(void)small_schedule().actions(tessel::all_devices).to_vector();
	});

	// ------------------------------------------------------------ changes under a live view
	raises("set_step while a range is alive", TESSEL_EINVAL, "range or iterator", [&] {
		tessel::Schedule s = small_schedule();
		auto r = s.entries(0);
		s.set_step(0, 0, 1000);
	});
	works("set_step once the range is gone", [&] {
		tessel::Schedule s = small_schedule();
		{ auto r = s.entries(0); }
		s.set_step(0, 0, 1000);
		bool violated = false;
		try {
			s.validate();
		} catch (const tessel::Error &e) {
			violated = e.code() == TESSEL_EVIOLATION;
		}
		require(violated, "the change is seen by the validator");
	});
	raises("release while an iterator is alive", TESSEL_EINVAL, "range or iterator", [&] {
		tessel::Schedule s = small_schedule();
		auto it = s.entry_iterator(0);
		(void)s.release();
	});
	works("release, then adopt again", [&] {
		tessel::Schedule s = small_schedule();
		tessel_schedule *raw = s.release();
		require(!s && raw, "released");
		tessel::Schedule t = tessel::Schedule::adopt(raw);
		require(same(entries_of(t, 0), reference), "the same schedule");
	});

	// ------------------------------------------------------------ empty handles
	raises("a moved-from Schedule", TESSEL_EINVAL, "tessel::Schedule: the handle is empty", [&] {
		tessel::Schedule s = small_schedule();
		tessel::Schedule t = std::move(s);
		(void)s.makespan();
	});
	raises("entries of a moved-from Schedule", TESSEL_EINVAL, "the handle is empty", [&] {
		tessel::Schedule s = small_schedule();
		tessel::Schedule t = std::move(s);
		(void)s.entries(0);
	});
	raises("to_json of a moved-from Schedule", TESSEL_EINVAL, "the handle is empty", [&] {
		tessel::Schedule s = small_schedule();
		tessel::Schedule t = std::move(s);
		(void)s.to_json();
	});
	raises("Schedule adopted from NULL", TESSEL_EINVAL, "the handle is empty", [&] {
		(void)tessel::Schedule::adopt(nullptr).period();
	});
	raises("a moved-from Graph", TESSEL_EINVAL, "tessel::Graph: the handle is empty", [&] {
		tessel::Graph g = small_graph();
		tessel::Graph h = std::move(g);
		g.add_block("x", tessel::Kind::Forward, 1, 0);
	});
	raises("search on a moved-from Graph", TESSEL_EINVAL, "tessel::Graph: the handle is empty", [&] {
		tessel::Graph g = small_graph();
		tessel::Graph h = std::move(g);
		(void)tessel::search(g);
	});
	raises("a moved-from Options", TESSEL_EINVAL, "tessel::Options: the handle is empty", [&] {
		tessel::Options o;
		tessel::Options p = std::move(o);
		o.set(TESSEL_OPT_SEED, 1);
	});

	// ------------------------------------------------------------ options
	works("SearchOptions defaults equal the library's (and the CLI's)", [&] {
		tessel::Options lib;
		tessel::Options cpp{tessel::SearchOptions()};
		for (int k = TESSEL_OPT_MICRO_BATCHES; k <= TESSEL_OPT_REPETEND_MICRO_BATCHES; k++) {
			auto key = static_cast<tessel_option>(k);
			require(lib.get(key) == cpp.get(key),
				"option " + std::to_string(k) + " has the library default");
		}
	});
	works("every SearchOptions field reaches its option", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 12;
		so.time_limit_ms = 3000;
		so.threads = 2;
		so.fast = true;
		so.max_period = 40;
		so.seed = 7;
		so.minimize_depth = false;
		so.solver_memory_mb = 512;
		so.repetend_micro_batches = 2;
		tessel::Options o(so);
		require(o.get(TESSEL_OPT_MICRO_BATCHES) == 12, "micro_batches");
		require(o.get(TESSEL_OPT_TIME_LIMIT_MS) == 3000, "time_limit_ms");
		require(o.get(TESSEL_OPT_THREADS) == 2, "threads");
		require(o.get(TESSEL_OPT_FAST) == 1, "fast");
		require(o.get(TESSEL_OPT_MAX_PERIOD) == 40, "max_period");
		require(o.get(TESSEL_OPT_SEED) == 7, "seed");
		require(o.get(TESSEL_OPT_MINIMIZE_DEPTH) == 0, "minimize_depth");
		require(o.get(TESSEL_OPT_SOLVER_MEMORY_MB) == 512, "solver_memory_mb");
		require(o.get(TESSEL_OPT_REPETEND_MICRO_BATCHES) == 2, "repetend_micro_batches");
	});
	works("SearchOptions is an aggregate: SearchOptions{8, 5000, 1, true}", [&] {
		tessel::Options o(tessel::SearchOptions{8, 5000, 1, true});
		require(o.get(TESSEL_OPT_MICRO_BATCHES) == 8 && o.get(TESSEL_OPT_TIME_LIMIT_MS) == 5000 &&
				o.get(TESSEL_OPT_THREADS) == 1 && o.get(TESSEL_OPT_FAST) == 1 &&
				o.get(TESSEL_OPT_REPETEND_MICRO_BATCHES) == 8,
			"the fields in order, the rest default");
	});
	raises("micro_batches = 0", TESSEL_ERANGE, "micro-batches must be 1 .. 1000000", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 0;
		(void)tessel::search(small_graph(), so);
	});
	raises("repetend_micro_batches = 17", TESSEL_ERANGE, "repetend micro-batches must be 1 .. 16", [&] {
		tessel::SearchOptions so;
		so.repetend_micro_batches = 17;
		(void)tessel::search(small_graph(), so);
	});
	raises("negative seed", TESSEL_ERANGE, "seed must be", [&] {
		tessel::SearchOptions so;
		so.seed = -1;
		(void)tessel::Options(so);
	});
	raises("an unknown option key", TESSEL_EINVAL, "unknown option key 99", [&] {
		tessel::Options o;
		o.set(static_cast<tessel_option>(99), 1);
	});
	works("the max_period cap holds", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.fast = true;
		auto s = tessel::search(small_graph(), so);
		so.max_period = s.period();
		auto t = tessel::search(small_graph(), so);
		require(t.period() <= so.max_period, "the period within the cap");
	});
	raises("max_period below the resource bound", TESSEL_EINFEASIBLE, "period at most", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.fast = true;
		so.max_period = small_graph().resource_bound() - 1;
		(void)tessel::search(small_graph(), so);
	});

	// ------------------------------------------------------------ progress and cancel
	works("the progress callback sees each better schedule", [&] {
		std::vector<tessel::Progress> seen;
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.progress = [&](const tessel::Progress &p) {
			seen.push_back(p);
			return true;
		};
		auto s = tessel::search(small_graph(), so);
		require(!seen.empty(), "called at least once");
		require(seen.back().period == s.period(), "the last call has the period found");
		for (const auto &p : seen)
			require(p.makespan >= p.lower_bound && p.lower_bound == s.lower_bound(),
				"makespan >= LB(N)");
		for (const auto &p : seen)
			require(!p.phase.empty() && p.work >= 0 && p.work_limit > 0 &&
					p.repetend_micro_batches >= 1 &&
					p.period_per_micro_batch() * static_cast<double>(p.repetend_micro_batches) ==
						static_cast<double>(p.period),
				"phase, work, budget, k and P_k / k");
	});
	works("a progress callback returning false stops with a schedule", [&] {
		int calls = 0;
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.progress = [&](const tessel::Progress &) {
			calls++;
			return false;
		};
		auto s = tessel::search(small_graph(), so);
		s.validate();
		require(calls == 1, "no call after the stop");
	});
	raises("a progress callback that throws", TESSEL_EINFEASIBLE, "from the callback", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.progress = [](const tessel::Progress &) -> bool {
			throw tessel::Error(TESSEL_EINFEASIBLE, "thrown from the callback");
		};
		(void)tessel::search(small_graph(), so);
	});
	works("a progress callback's std::exception comes out unchanged", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.progress = [](const tessel::Progress &) -> bool {
			throw std::out_of_range("mine");
		};
		bool caught = false;
		try {
			(void)tessel::search(small_graph(), so);
		} catch (const std::out_of_range &e) {
			caught = std::string(e.what()) == "mine";
		}
		require(caught, "std::out_of_range(\"mine\")");
	});
	works("Options keep their callback when moved", [&] {
		int calls = 0;
		tessel::Options o;
		o.set(TESSEL_OPT_MICRO_BATCHES, 8);
		o.set_progress([&](const tessel::Progress &) { return ++calls > 0; });
		tessel::Options p = std::move(o);
		(void)tessel::search(small_graph(), p);
		require(calls > 0, "called through the moved Options");
	});
	works("a token reset after a cancel lets the same Options search again", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.work_limit = 50;
		tessel::Options opts(so);
		so.cancel.cancel();
		bool cancelled = false;
		try {
			(void)tessel::search(small_graph(), opts);
		} catch (const tessel::Error &e) {
			cancelled = e.code() == TESSEL_ECANCELLED;
		}
		require(cancelled, "cancelled while the token is");
		so.cancel.reset();
		tessel::search(small_graph(), opts).validate();
		opts.cancel(); // the options' own cancel stays until clear_cancel
		so.cancel.reset();
		cancelled = false;
		try {
			(void)tessel::search(small_graph(), opts);
		} catch (const tessel::Error &e) {
			cancelled = e.code() == TESSEL_ECANCELLED;
		}
		require(cancelled, "Options::cancel is not withdrawn by the token");
		opts.clear_cancel();
		tessel::search(small_graph(), opts).validate();
	});
	works("Options replaced while a search uses them: the search keeps its own", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.work_limit = 100;
		so.threads = 1;
		std::atomic<bool> in_callback{false}, replaced{false};
		so.progress = [&](const tessel::Progress &) {
			in_callback = true;
			while (!replaced)
				std::this_thread::yield();
			return true;
		};
		tessel::Options opts(so);
		int64_t makespan = 0;
		std::thread t([&] { makespan = tessel::search(small_graph(), opts).makespan(); });
		while (!in_callback)
			std::this_thread::yield();
		bool refused = false;
		try {
			opts.set(TESSEL_OPT_SEED, 3);
		} catch (const tessel::Error &e) {
			refused = e.code() == TESSEL_EINVAL;
		}
		opts = tessel::Options(); // the search holds the options it began with
		replaced = true;
		t.join();
		require(refused && makespan > 0, "the change refused, the search done");
	});
	works("searches sharing Options each get their own callback's exception", [&] {
		tessel::Options opts;
		opts.set(TESSEL_OPT_MICRO_BATCHES, 8);
		opts.set(TESSEL_OPT_WORK_LIMIT, 50);
		opts.set(TESSEL_OPT_THREADS, 1);
		std::atomic<int> arrived{0};
		opts.set_progress([&](const tessel::Progress &) -> bool {
			++arrived;
			auto t0 = std::chrono::steady_clock::now();
			while (arrived < 2 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2))
				std::this_thread::yield();
			throw std::runtime_error(std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())));
		});
		std::string got[2], mine[2];
		std::thread t[2];
		for (int i = 0; i < 2; i++)
			t[i] = std::thread([&, i] {
				mine[i] = std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()));
				try {
					(void)tessel::search(small_graph(), opts);
					got[i] = "a schedule";
				} catch (const std::runtime_error &e) {
					got[i] = e.what();
				}
			});
		for (auto &x : t)
			x.join();
		require(got[0] == mine[0] && got[1] == mine[1], "each search its own thread's exception");
	});
	works("a Schedule read and changed from several threads at once", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.work_limit = 50;
		auto s = tessel::search(small_graph(), so);
		const int rounds = under_valgrind() ? 20 : 300;
		std::atomic<int> refused{0};
		std::thread changer([&] {
			for (int n = 0; n < rounds; n++)
				try {
					s.set_step(0, 0, n % 3);
				} catch (const tessel::Error &e) {
					require(e.code() == TESSEL_EINVAL, "refused while a range lives");
					refused++;
				}
		});
		std::thread iterating([&] {
			for (int n = 0; n < rounds; n++)
				for (const auto &e : s.entries())
					(void)e;
		});
		for (int n = 0; n < rounds; n++) {
			(void)s.to_json();
			(void)s.makespan();
		}
		changer.join();
		iterating.join();
		s.set_step(0, 0, 0);
		require(s.to_json().find("tessel-schedule") != std::string::npos, "still whole");
	});
	works("a change waits for a write on another thread, never refused for it", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.work_limit = 50;
		auto s = tessel::search(small_graph(), so);
		const int rounds = under_valgrind() ? 20 : 2000;
		std::atomic<bool> stop{false};
		std::thread writer([&] {
			while (!stop) {
				std::ostringstream os;
				s.write(os, TESSEL_FORMAT_TEXT);
			}
		});
		int refused = 0;
		for (int n = 0; n < rounds; n++)
			try {
				s.set_step(0, 0, 0);
			} catch (const tessel::Error &) {
				refused++;
			}
		stop = true;
		writer.join();
		require(refused == 0, "no range or iterator alive: no change refused");
	});
	raises("a double parameter given an integer beyond 2^53", TESSEL_ERANGE, "no exact double", [&] {
		auto g = small_graph();
		g.set_step((int64_t(1) << 53) + 1);
	});
	raises("a double parameter given a long double no double holds", TESSEL_ERANGE, "no exact double", [&] {
		auto g = small_graph();
		g.set_step(0.1L);
	});
	works("a double parameter given a long double a double holds", [&] {
		auto g = small_graph();
		g.set_step(0.5L);
		require(g.step() == 0.5, "0.5L taken as 0.5");
		require(tessel::pick_step({1.5, 3}) > 0, "a braced list of reals");
	});
	raises("a stream that fails once flushed", TESSEL_EIO, "flushed", [&] {
		auto g = small_graph();
		tessel::SearchOptions o{4};
		auto s = tessel::search(g, o);
		std::ofstream full("/dev/full");
		require(full.good(), "/dev/full opens");
		s.write(full, TESSEL_FORMAT_TEXT);
	});
	works("a double parameter given an integer a double holds", [&] {
		auto g = small_graph();
		g.set_step(int64_t(1) << 53);
		g.set_step(3);
		require(g.step() == 3.0, "3 taken as 3.0");
	});
	works("a change races no search: refused or before it, never during", [&] {
		tessel::Options opts;
		opts.set(TESSEL_OPT_MICRO_BATCHES, 4);
		opts.set(TESSEL_OPT_WORK_LIMIT, 20);
		opts.set(TESSEL_OPT_THREADS, 1);
		auto g = tessel::Graph::preset("mshape", 4, 6);
		std::atomic<bool> stop{false};
		std::thread setter([&] {
			for (int n = 0; !stop; n++)
				try {
					opts.set(TESSEL_OPT_MICRO_BATCHES, 4 + n % 3);
				} catch (const tessel::Error &e) {
					require(e.code() == TESSEL_EINVAL, "refused while in use");
				}
		});
		for (int i = 0; i < (under_valgrind() ? 3 : 30); i++)
			tessel::search(g, opts).validate();
		stop = true;
		setter.join();
	});
	raises("a search with a token cancelled before it starts", TESSEL_ECANCELLED, "cancelled", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.cancel.cancel();
		(void)tessel::search(small_graph(), so);
	});
	works("cancel from another thread stops a long search with a schedule", [&] {
		// nnshape on 8 devices, 64 micro-batches: the solver runs for
		// minutes; the heuristic's schedule comes within milliseconds
		auto g = tessel::Graph::preset("nnshape", 8, 6);
		tessel::SearchOptions so;
		so.micro_batches = under_valgrind() ? 16 : 64;
		so.time_limit_ms = 600000;
		std::atomic<bool> first{false};
		so.progress = [&](const tessel::Progress &) {
			first = true;
			return true;
		};
		tessel::CancelToken token = so.cancel;
		auto t0 = std::chrono::steady_clock::now();
		// valgrind runs one thread at a time and may starve the
		// canceller for minutes: there the token is cancelled from the
		// first progress call instead
		bool same_thread = under_valgrind();
		if (same_thread)
			so.progress = [token](const tessel::Progress &) mutable {
				token.cancel();
				return true;
			};
		std::thread canceller([&] {
			if (same_thread)
				return;
			while (!first)
				std::this_thread::sleep_for(std::chrono::milliseconds(10));
			std::this_thread::sleep_for(std::chrono::milliseconds(300));
			token.cancel();
		});
		tessel::Schedule s = [&] {
			try {
				return tessel::search(g, so);
			} catch (...) {
				canceller.join();
				throw;
			}
		}();
		canceller.join();
		double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		s.validate();
		require(token.cancelled(), "the token says cancelled");
		require(secs < (under_valgrind() ? 120.0 : 30.0), "stopped soon after the cancel");
		std::cout << "        (stopped after " << secs << " s, makespan " << s.makespan()
			  << ", LB " << s.lower_bound() << ")\n";
	});
	works("a reset token lets the next search run", [&] {
		tessel::SearchOptions so;
		so.micro_batches = 8;
		so.cancel.cancel();
		so.cancel.reset();
		tessel::search(small_graph(), so).validate();
	});

	// ------------------------------------------------------------ exports
	works("to_trace_json() defaults to 1000 us per step, as the CLI", [&] {
		auto s = small_schedule();
		require(s.to_trace_json() == s.to_trace_json(0), "the default is 0 (the CLI's)");
		require(s.to_trace_json() == s.to_trace_json(1000),
			"1000 us per step for a placement without a step");
		require(s.to_trace_json() != s.to_trace_json(1), "not 1 us per step");
	});
	raises("to_trace_json(-1)", TESSEL_EINVAL, "tessel_schedule_to_trace_json", [&] {
		(void)small_schedule().to_trace_json(-1);
	});
	works("write() streams the texts of to_json() and to_svg()", [&] {
		auto s = small_schedule();
		std::ostringstream a, b;
		s.write(a, TESSEL_FORMAT_JSON);
		s.write(b, TESSEL_FORMAT_SVG);
		require(a.str() == s.to_json(), "the JSON");
		require(b.str() == s.to_svg(), "the SVG");
	});
	raises("write() to a failed stream", TESSEL_EIO, "tessel_schedule_write", [&] {
		std::ostringstream a;
		a.setstate(std::ios::badbit);
		small_schedule().write(a, TESSEL_FORMAT_JSON);
	});
	raises("write() with a step for JSON", TESSEL_EINVAL, "tessel_schedule_write", [&] {
		std::ostringstream a;
		small_schedule().write(a, TESSEL_FORMAT_JSON, 5.0);
	});
	works("write() throws again what the stream throws", [&] {
		struct throwing_buf : std::streambuf {
			int_type overflow(int_type) override
			{
				throw std::runtime_error("disk on fire");
			}
			std::streamsize xsputn(const char *, std::streamsize) override
			{
				throw std::runtime_error("disk on fire");
			}
		} tb;
		std::ostream os(&tb);
		os.exceptions(std::ios::badbit);
		bool thrown = false;
		try {
			small_schedule().write(os, TESSEL_FORMAT_JSON);
		} catch (const std::runtime_error &e) {
			thrown = std::strcmp(e.what(), "disk on fire") == 0;
		}
		require(thrown, "the stream's own exception");
	});
	works("write() to a stream that changes or drops the schedule", [&] {
		// a change from the stream throws (it waited for the write's own
		// lock for ever); reading it works; dropping it leaves the write
		// its schedule
		struct changing_buf : std::streambuf {
			tessel::Schedule *s = nullptr;
			int refused = 0, read = 0, dropped = 0;
			std::streamsize xsputn(const char *, std::streamsize n) override
			{
				try {
					s->set_step(0, 0, 5);
				} catch (const tessel::Error &e) {
					refused += e.code() == TESSEL_EINVAL;
				}
				try {
					s->release();
				} catch (const tessel::Error &e) {
					refused += e.code() == TESSEL_EINVAL;
				}
				if (*s) {
					read += s->makespan() > 0;
					tessel::Schedule gone = std::move(*s);
					dropped += !*s;
				}
				return n;
			}
			int_type overflow(int_type c) override { return c; }
		} cb;
		auto s = small_schedule();
		cb.s = &s;
		std::ostream os(&cb);
		s.write(os, TESSEL_FORMAT_JSON);
		require(cb.refused == 2 && cb.read == 1 && cb.dropped == 1,
			"refused, read, then dropped");
		require(!s, "the schedule was dropped");
	});

	// ------------------------------------------------------------ errors
	raises("Graph(0)", TESSEL_ERANGE, "tessel_graph_new", [&] { tessel::Graph g(0); });
	// an integer that does not fit the C parameter is refused, not cut
	raises("Graph(2^32 + 2)", TESSEL_ERANGE, "ndevices: 4294967298 is out of range for the C type int",
	       [&] { tessel::Graph g(4294967298LL); });
	raises("a span of 2^40", TESSEL_ERANGE, "1099511627776 is out of range for the C type int", [&] {
		tessel::Graph g(2);
		g.add_block("f", tessel::Kind::Forward, int64_t(1) << 40, 1);
	});
	raises("a device of 2^32", TESSEL_ERANGE, "tessel::Graph::place: device: 4294967296", [&] {
		tessel::Graph g(2);
		int f = g.add_block("f", tessel::Kind::Forward, 1, 1);
		g.place(f, int64_t(1) << 32);
	});
	raises("a dependency on 2^32 + 1", TESSEL_ERANGE, "tessel::Graph::add_dep: after: 4294967297", [&] {
		tessel::Graph g(2);
		g.add_dep(0, (int64_t(1) << 32) + 1);
	});
	raises("a dependency index of -1", TESSEL_ERANGE, "-1 is out of range for the C type size_t", [&] {
		(void)small_graph().dep_latency(1, -1);
	});
	raises("a micro-batch of 2^64 - 1", TESSEL_ERANGE,
	       "18446744073709551615 is out of range for the C type int64_t", [&] {
		       auto s = small_schedule();
		       s.set_step(0, UINT64_MAX, 0);
	       });
	raises("an option of 2^64 - 1", TESSEL_ERANGE,
	       "18446744073709551615 is out of range for the C type int64_t", [&] {
		       tessel::Options o;
		       o.set(TESSEL_OPT_SEED, UINT64_MAX);
	       });
	raises("the peak memory of device 2^32", TESSEL_ERANGE, "4294967296 is out of range for the C type int",
	       [&] { (void)small_schedule().peak_memory(int64_t(1) << 32); });
	raises("a recompute of block 2^31", TESSEL_ERANGE, "tessel::Graph::recompute: gid: 2147483648", [&] {
		(void)small_graph().recompute(2147483648U);
	});
	raises("a file that does not exist", TESSEL_EIO, "/nonexistent/s.json", [&] {
		(void)tessel::Schedule::from_file("/nonexistent/s.json");
	});
	raises("malformed JSON", TESSEL_EPARSE, "line 1, column 1", [&] {
		(void)tessel::Schedule::from_json("");
	});
	raises("a block name out of range", TESSEL_ENOTFOUND, "tessel_graph_block_name", [&] {
		(void)small_schedule().block_name(1000);
	});

	// ------------------------------------------------------------ by name, chrono
	works("add_dep by block names", [&] {
		tessel::Graph g(2);
		g.place(g.add_block("f0", tessel::Kind::Forward, 1, 1), 0);
		g.place(g.add_block("f1", tessel::Kind::Forward, 1, 1), 1);
		g.place(g.add_block("b1", tessel::Kind::Backward, 1, -1), 1);
		g.place(g.add_block("b0", tessel::Kind::Backward, 1, -1), 0);
		g.add_dep("f0", "f1");
		g.add_dep("f1", "b1");
		g.add_dep_latency("b1", "b0", 2);
		tessel::SearchOptions o;
		o.micro_batches = 4;
		tessel::search(g, o).validate();
	});
	raises("add_dep with an unknown name", TESSEL_ENOTFOUND, "nosuch", [&] {
		tessel::Graph g(1);
		g.place(g.add_block("a", tessel::Kind::Forward, 1, 0), 0);
		g.add_dep("a", "nosuch");
	});
	works("the period per micro-batch is P_k / k", [&] {
		auto s = small_schedule();
		require(s.repetend_micro_batches() >= 1, "k >= 1");
		require(s.period_per_micro_batch() * static_cast<double>(s.repetend_micro_batches()) ==
				static_cast<double>(s.period()),
			"P_k / k");
	});
	works("a time limit as a std::chrono duration, rounded up", [&] {
		tessel::SearchOptions o;
		o.set_time_limit(std::chrono::microseconds(1500));
		require(o.time_limit_ms == 2, "1.5 ms rounds up to 2 ms");
		o.set_time_limit(std::chrono::seconds(3));
		require(o.time_limit() == std::chrono::milliseconds(3000), "3 s");
	});
	works("a graph changed by one thread while another searches it", [&] {
		auto g = tessel::Graph::preset("vshape", 4, 4);
		const int64_t before = g.blocks();
		const int changes = 50;
		std::thread changer([&] {
			for (int i = 0; i < changes; i++) {
				// (a block added and placed as one change: a search
				// copies the graph between two calls, never inside one)
				auto held = g.lock();
				int b = g.add_block("m" + std::to_string(i), tessel::Kind::Forward, 1, 0);
				g.place(b, i % 4);
				held.unlock();
				g.set_memory_limit(4 + i % 3);
				(void)g.blocks();
			}
		});
		tessel::SearchOptions o;
		o.micro_batches = 4;
		o.work_limit = 20;
		try {
			for (int k = 0; k < (under_valgrind() ? 3 : 20); k++)
				tessel::search(g, o).validate();
		} catch (...) {
			changer.join();
			throw;
		}
		changer.join();
		require(g.blocks() == before + changes, "every change made");
		tessel::search(g, o).validate();
	});
	raises("a time limit beyond a day, not converted into another number", TESSEL_ERANGE,
	       "within a day", [&] {
		       tessel::SearchOptions o;
		       o.set_time_limit(std::chrono::seconds(18446744073709552LL));
	       });
	raises("a time limit of hours::max()", TESSEL_ERANGE, "within a day", [&] {
		tessel::SearchOptions o;
		o.set_time_limit(std::chrono::hours::max());
	});
	raises("a time limit that is not a number", TESSEL_ERANGE, "not a number", [&] {
		tessel::SearchOptions o;
		o.set_time_limit(std::chrono::duration<double>(std::nan("")));
	});
	raises("a negative time limit, refused by the search", TESSEL_ERANGE, "", [&] {
		tessel::SearchOptions o;
		o.set_time_limit(std::chrono::milliseconds(-5));
		require(o.time_limit_ms < 0, "negative stays negative");
		tessel::search(tessel::Graph::preset("vshape", 2, 4), o);
	});
	raises("a block name with a NUL character", TESSEL_EINVAL, "NUL", [&] {
		tessel::Graph g(2);
		g.add_block(std::string("a\0b", 3), tessel::Kind::Forward, 1, 0);
	});
	raises("a unit with a NUL character", TESSEL_EINVAL, "NUL", [&] {
		tessel::Graph g(2);
		g.set_unit(std::string("ms\0xx", 5));
	});
	raises("a path with a NUL character", TESSEL_EINVAL, "NUL", [&] {
		tessel::Graph::from_file(std::string("/etc/passwd\0x", 14));
	});
	raises("a preset name with a NUL character", TESSEL_EINVAL, "NUL", [&] {
		tessel::Graph::preset(std::string("mshape\0junk", 11), 4, 6);
	});
	raises("the progress callback changed from within a search", TESSEL_EINVAL,
	       "a search uses these options", [&] {
		       tessel::Options o;
		       o.set(TESSEL_OPT_MICRO_BATCHES, 8);
		       o.set_progress([&o](const tessel::Progress &) {
			       o.set_progress([](const tessel::Progress &) { return true; });
			       return true;
		       });
		       tessel::search(tessel::Graph::preset("vshape", 4, 4), o);
	       });

	if (failures) {
		std::cout << failures << " case(s) failed\n";
		return 1;
	}
	std::cout << "every case as catalogued\n";
	return 0;
}
