// The memory-time alternatives through tessel.hpp (since 1.6): declared on
// a graph and read back, chosen by the search under a tight memory limit
// or by hand with Schedule::set_choice, kept by the schedule JSON; every
// misuse throws tessel::Error with the library's code. Prints one line per
// case, "ok" or what failed.
//
// SPDX-License-Identifier: MIT
#include <tessel.hpp>

#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

int failures = 0;

void require(bool cond, const std::string &what)
{
	if (!cond)
		throw std::logic_error("check failed: " + what);
}

void check_case(const char *name, const std::function<void()> &body)
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

// `body` must throw tessel::Error with `code`.
void require_error(int code, const std::string &what, const std::function<void()> &body)
{
	try {
		body();
	} catch (const tessel::Error &e) {
		if (e.code() != code)
			throw std::logic_error(what + ": tessel::Error " + std::to_string(e.code()) +
					       " (want " + std::to_string(code) + "): " + e.what());
		return;
	}
	throw std::logic_error(what + ": no exception");
}

// 4 devices, forwards f0..f3 (span 2, memory 4) and backwards b3..b0
// (span 4, memory -4), every forward recomputable (saves 3, extra 2),
// memory limit 4: one activation a device unless some are recomputed.
tessel::Graph tight_pipeline()
{
	tessel::Graph g(4);
	for (int s = 0; s < 4; s++) {
		int f = g.add_block("f" + std::to_string(s), tessel::Kind::Forward, 2, 4);
		g.place(f, s);
		if (s)
			g.add_dep(f - 1, f);
	}
	for (int s = 3; s >= 0; s--) {
		int b = g.add_block("b" + std::to_string(s), tessel::Kind::Backward, 4, -4);
		g.place(b, s);
		g.add_dep(s, b);
		if (s < 3)
			g.add_dep(b - 1, b);
	}
	for (int s = 0; s < 4; s++)
		g.set_recompute("f" + std::to_string(s), "b" + std::to_string(s), 3, 2);
	g.set_memory_limit(4);
	return g;
}

// f (span 1, memory 2) then b (span 1, memory -2) on one device, memory
// limit 2, f declaring both alternatives.
tessel::Graph one_device()
{
	tessel::Graph g(1);
	g.place(g.add_block("f", tessel::Kind::Forward, 1, 2), 0);
	g.place(g.add_block("b", tessel::Kind::Backward, 1, -2), 0);
	g.add_dep("f", "b");
	g.set_memory_limit(2);
	g.set_recompute("f", "b", 2, 1);
	g.set_offload("f", "b", 2, 1);
	return g;
}

} // namespace

int main()
{
	check_case("declare and read back", [] {
		tessel::Graph g = one_device();
		auto r = g.recompute("f");
		require(r.has_value() && r->backward == 1 && r->saves == 2 && r->extra == 1,
			"recompute of f");
		auto o = g.offload(0);
		require(o.has_value() && o->backward == 1 && o->saves == 2 && o->transfer == 1,
			"offload of f");
		require(!g.recompute("b") && !g.offload(1), "b declares nothing");
		g.validate();
		// the placement JSON keeps them, and so does a copy
		tessel::Graph again = tessel::Graph::from_json(g.to_json());
		require(again.recompute(0)->extra == 1 && again.offload(0)->transfer == 1,
			"read back from JSON");
		require(g.clone().offload("f").has_value(), "a clone keeps them");
		require(g.to_json().find("\"recompute\": {\"backward\": \"b\"") != std::string::npos,
			"the JSON names the backward");
		g.set_recompute(0, 1, 1, 0);
		require(g.recompute(0)->saves == 1 && g.recompute(0)->extra == 0, "redeclared");
		g.clear_recompute(0);
		g.clear_offload(0);
		require(!g.recompute(0) && !g.offload(0), "removed");
		require(tessel_error_last_code() == TESSEL_OK, "no error left behind");
	});

	check_case("declaration errors", [] {
		tessel::Graph g = one_device();
		g.clear_recompute(0);
		require_error(TESSEL_ENOTFOUND, "unknown block", [&] { g.set_recompute(5, 1, 1, 1); });
		require_error(TESSEL_ENOTFOUND, "unknown name",
			      [&] { g.set_recompute("f", "nosuch", 1, 1); });
		require_error(TESSEL_ENOTFOUND, "-1 is no backward",
			      [&] { g.set_recompute(0, -1, 1, 1); });
		require_error(TESSEL_ENOTFOUND, "read an unknown block", [&] { g.recompute(7); });
		require_error(TESSEL_ENOTFOUND, "read an unknown name", [&] { g.offload("x"); });
		require_error(TESSEL_EINVAL, "its own backward", [&] { g.set_recompute(0, 0, 1, 1); });
		require_error(TESSEL_ERANGE, "saves above the memory",
			      [&] { g.set_recompute(0, 1, 3, 1); });
		require_error(TESSEL_ERANGE, "saves 0", [&] { g.set_recompute(0, 1, 0, 1); });
		require_error(TESSEL_ERANGE, "negative extra", [&] { g.set_recompute(0, 1, 1, -1); });
		require_error(TESSEL_ERANGE, "transfer 0", [&] { g.set_offload(0, 1, 1, 0); });
		require(!g.recompute(0), "nothing declared by the failures");
		tessel::Graph two(2);
		two.place(two.add_block("f", tessel::Kind::Forward, 1, 1), 0);
		two.place(two.add_block("b", tessel::Kind::Backward, 1, -1), 1);
		require_error(TESSEL_EINVAL, "backward on another device",
			      [&] { two.set_recompute("f", "b", 1, 1); });
	});

	check_case("search recomputes under a tight limit", [] {
		tessel::Graph g = tight_pipeline();
		tessel::SearchOptions o;
		o.micro_batches = 16;
		tessel::Schedule with = tessel::search(g, o);
		with.validate();
		int recomputed = 0;
		for (const auto &e : with.entries()) {
			require(e.offload_start == -1 && e.reload_start == -1, "no copies");
			if (e.choice == tessel::Choice::Recompute) {
				recomputed++;
				require(e.kind == tessel::Kind::Forward && e.memory == 1,
					"a recomputed forward keeps 4 - 3");
			} else {
				require(e.choice == tessel::Choice::Keep, "keep or recompute");
			}
		}
		require(recomputed > 0, "some forwards recomputed");
		for (int d = 0; d < 4; d++)
			require(with.peak_memory(d) <= 4, "within the limit");
		o.alternatives = tessel::Alternatives::Off;
		tessel::Schedule plain = tessel::search(g, o);
		plain.validate();
		for (const auto &e : plain.entries())
			require(e.choice == tessel::Choice::Keep, "off keeps every activation");
		require(with.makespan() < plain.makespan(), "recompute shortens the schedule");
		require(with.makespan() <= 160 && plain.makespan() >= 384, "about 148 and 384");
		o.alternatives = tessel::Alternatives::Always;
		tessel::Schedule always = tessel::search(g, o);
		always.validate();
		for (const auto &e : always.entries())
			require(e.choice == (e.kind == tessel::Kind::Forward ? tessel::Choice::Recompute
									     : tessel::Choice::Keep),
				"always recomputes every forward");
		// the choices survive the schedule JSON
		tessel::Schedule again = tessel::Schedule::from_json(with.to_json());
		again.validate();
		require(again.to_json() == with.to_json(), "JSON round trip");
		auto a = with.entries().to_vector(), b = again.entries().to_vector();
		require(a.size() == b.size(), "as many entries");
		for (size_t i = 0; i < a.size(); i++)
			require(a[i].choice == b[i].choice && a[i].span == b[i].span,
				"the same choices and spans");
		require(tessel::Options(o).get(TESSEL_OPT_ALTERNATIVES) == 2, "the option is set");
	});

	check_case("set_choice by hand", [] {
		tessel::Schedule s = tessel::Schedule::empty(one_device(), 2);
		s.set_step(0, 0, 0);
		s.set_step(0, 1, 1);
		s.set_step(1, 0, 2);
		s.set_step(1, 1, 4);
		require_error(TESSEL_EVIOLATION, "both kept: over the limit", [&] { s.validate(); });
		s.set_choice("f", 0, tessel::Choice::Recompute);
		s.validate();
		auto es = s.entries().to_vector();
		require(es[0].choice == tessel::Choice::Recompute && es[0].memory == 0,
			"f of micro-batch 0 recomputed");
		require(es[2].block == "b" && es[2].micro_batch == 0 && es[2].span == 2,
			"its backward runs one step longer");
		require(std::string(tessel::to_string(es[0].choice)) == "recompute", "named");
		s.set_step(1, 1, 3);
		require_error(TESSEL_EVIOLATION, "the longer backward overlaps", [&] { s.validate(); });
		s.set_step(1, 1, 4);
		s.set_choice(0, 0, tessel::Choice::Keep);
		require_error(TESSEL_EVIOLATION, "kept again", [&] { s.validate(); });
		s.set_choice(0, 0, tessel::Choice::Recompute);
		tessel::Schedule again = tessel::Schedule::from_json(s.to_json());
		again.validate();
		require(again.entries().to_vector()[0].choice == tessel::Choice::Recompute,
			"JSON keeps the choice");
	});

	check_case("offload by hand", [] {
		tessel::Schedule s = tessel::Schedule::empty(one_device(), 2);
		s.set_step(0, 0, 0);
		s.set_step(0, 1, 2);
		s.set_step(1, 1, 3);
		s.set_step(1, 0, 5);
		require_error(TESSEL_EVIOLATION, "kept: over the limit", [&] { s.validate(); });
		s.set_choice("f", 0, tessel::Choice::Offload, 1, 4);
		s.validate();
		tessel::Entry e = s.entries().to_vector()[0];
		require(e.choice == tessel::Choice::Offload && e.offload_start == 1 &&
				e.reload_start == 4,
			"the copies' steps");
		tessel::Schedule again = tessel::Schedule::from_json(s.to_json());
		again.validate();
		tessel::Entry f = again.entries().to_vector()[0];
		require(f.offload_start == 1 && f.reload_start == 4, "JSON keeps the copies");
		s.set_choice("f", 0, tessel::Choice::Offload, 1, 5);
		require_error(TESSEL_EVIOLATION, "the reload ends too late", [&] { s.validate(); });
	});

	check_case("set_choice errors", [] {
		tessel::Graph g = one_device();
		g.clear_offload(0);
		tessel::Schedule s = tessel::Schedule::empty(g, 2);
		require_error(TESSEL_EINVAL, "undeclared offload",
			      [&] { s.set_choice(0, 0, tessel::Choice::Offload, 1, 2); });
		require_error(TESSEL_EINVAL, "a backward declares nothing",
			      [&] { s.set_choice("b", 0, tessel::Choice::Recompute); });
		require_error(TESSEL_EINVAL, "unknown choice",
			      [&] { s.set_choice(0, 0, static_cast<tessel::Choice>(7)); });
		require_error(TESSEL_ENOTFOUND, "unknown micro-batch",
			      [&] { s.set_choice(0, 2, tessel::Choice::Recompute); });
		require_error(TESSEL_ENOTFOUND, "unknown block",
			      [&] { s.set_choice(2, 0, tessel::Choice::Recompute); });
		require_error(TESSEL_ENOTFOUND, "unknown name",
			      [&] { s.set_choice("x", 0, tessel::Choice::Recompute); });
		g.set_offload("f", "b", 1, 1);
		tessel::Schedule t = tessel::Schedule::empty(g, 2);
		require_error(TESSEL_ERANGE, "negative copy step",
			      [&] { t.set_choice(0, 0, tessel::Choice::Offload, -1, 2); });
		{
			auto range = t.entries();
			require_error(TESSEL_EINVAL, "a live range",
				      [&] { t.set_choice(0, 0, tessel::Choice::Recompute); });
		}
		t.set_choice(0, 0, tessel::Choice::Recompute);
		require(std::string(tessel::to_string(tessel::ActionKind::Reload)) == "reload" &&
				std::string(tessel::to_string(tessel::Alternatives::Always)) ==
					"always" &&
				std::string(tessel::to_string(tessel::Choice::Offload)) == "offload",
			"names");
		tessel::Options opts;
		require_error(TESSEL_ERANGE, "alternatives 3",
			      [&] { opts.set(TESSEL_OPT_ALTERNATIVES, 3); });
	});

	if (failures) {
		std::cout << failures << " case(s) failed\n";
		return 1;
	}
	return 0;
}
