// Example launcher: build a placement, search a schedule, and print what each
// rank (device) runs: its compute, send and receive actions in order.
//
//   launcher                       4-device 1F1B pipeline built through the API
//   launcher PRESET [DEVICES [MEMORY [MICRO_BATCHES]]]   a built-in preset
//
// A real launcher would start one process per rank and hand it its stream.
#include <tessel.hpp>

#include <cstdlib>
#include <iostream>
#include <string>

namespace {

// F on devices 0..D-1, then B on D-1..0: span 1 / 3, memory +1 / -1.
tessel::Graph pipeline(int devices, int64_t memory)
{
	tessel::Graph g(devices);
	int prev = -1;
	for (int i = 0; i < 2 * devices; i++) {
		bool fwd = i < devices;
		int dev = fwd ? i : 2 * devices - 1 - i;
		std::string name = (fwd ? "f" : "b") + std::to_string(dev);
		int gid = g.add_block(name, fwd ? tessel::Kind::Forward : tessel::Kind::Backward,
				      fwd ? 1 : 3, fwd ? 1 : -1);
		g.place(gid, dev);
		g.set_stage(gid, dev);
		if (prev >= 0)
			g.add_dep(prev, gid);
		prev = gid;
	}
	g.set_memory_limit(memory);
	return g;
}

} // namespace

int main(int argc, char **argv)
{
	try {
		int devices = argc > 2 ? std::atoi(argv[2]) : 4;
		int64_t memory = argc > 3 ? std::atoll(argv[3]) : 4;
		tessel::SearchOptions opts;
		opts.micro_batches = argc > 4 ? std::atoll(argv[4]) : 8;

		tessel::Graph g = argc > 1 ? tessel::Graph::preset(argv[1], devices, memory)
					   : pipeline(devices, memory);
		tessel::Schedule s = tessel::search(g, opts);
		s.validate();

		std::cout << "libtessel " << tessel::version() << ": " << g.blocks()
			  << " blocks on " << g.devices() << " devices, "
			  << s.micro_batches() << " micro-batches\n"
			  << "period " << s.period() << ", makespan " << s.makespan()
			  << " (lower bound " << s.lower_bound() << ")\n";

		for (int rank = 0; rank < devices; rank++) {
			std::cout << "rank " << rank << ":\n";
			for (const auto &a : s.actions(rank)) {
				std::cout << "  " << a.step << ' ' << tessel::to_string(a.kind) << ' '
					  << s.block_name(a.gid) << " mb " << a.micro_batch;
				if (a.kind == tessel::ActionKind::Send)
					std::cout << " -> rank " << a.peer << " ("
						  << s.block_name(a.peer_gid) << ')';
				else if (a.kind == tessel::ActionKind::Recv)
					std::cout << " <- rank " << a.peer << " ("
						  << s.block_name(a.peer_gid) << ')';
				std::cout << '\n';
			}
		}

		// Entries of rank 0, through the entry range.
		size_t n = 0;
		for (const auto &e : s.entries(0)) {
			if (e.devices.empty() || e.devices[0] != 0)
				throw std::runtime_error("entry of rank 0 not on rank 0");
			n++;
		}
		std::cout << "rank 0 runs " << n << " blocks\n";

		// Errors come back as exceptions with the library's message.
		try {
			tessel::Graph::preset("no-such-preset", 4);
			std::cerr << "expected an error\n";
			return 1;
		} catch (const tessel::Error &err) {
			if (err.code() != TESSEL_ENOTFOUND && err.code() != TESSEL_EINVAL) {
				std::cerr << "unexpected code " << err.code() << '\n';
				return 1;
			}
		}
		return 0;
	} catch (const tessel::Error &err) {
		std::cerr << "launcher: " << err.what() << " (code " << err.code() << ")\n";
		return 1;
	} catch (const std::exception &err) {
		std::cerr << "launcher: " << err.what() << '\n';
		return 1;
	}
}
