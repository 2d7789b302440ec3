/* libFuzzer target: see fuzz_check_search in fuzz_checks.h. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_check_search(data, size))
		__builtin_trap();
	return 0;
}
