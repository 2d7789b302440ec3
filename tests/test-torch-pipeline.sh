#!/bin/sh
# The PyTorch example (bindings/python/examples/torch_pipeline.py) trains a
# small model on 4 processes with libtessel's schedule for two placements
# and must match the one-process training to 1e-9. Skipped (77) when the
# python3 given has no torch.
#   test-torch-pipeline.sh PYTHON3 EXAMPLE TESSEL
set -u
py=$1 example=$2 cli=$3
"$py" -c 'import torch' 2>/dev/null || { echo "torch is not importable by $py: skipped"; exit 77; }
for p in vshape zbsplit; do
	out=$("$py" "$example" --devices 4 --micro-batches 4 --steps 2 \
		--placement $p --tessel "$cli" --timeout 90 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ $rc -eq 0 ] || { echo "FAIL: $p exited $rc"; exit 1; }
	printf '%s\n' "$out" | grep -q '^max parameter difference ' || { echo "FAIL: $p: no difference line"; exit 1; }
	printf '%s\n' "$out" | grep -q '^step time: tessel .* s, 1f1b .* s, gpipe .* s' || { echo "FAIL: $p: no step time line"; exit 1; }
done
# refusals are clear and come before any process starts
out=$("$py" "$example" --devices 4 --placement nosuch --tessel "$cli" 2>&1)
[ $? -eq 2 ] && printf '%s\n' "$out" | grep -q "unknown placement 'nosuch'" || { echo "FAIL: unknown placement: $out"; exit 1; }
exit 0
