#!/bin/sh
# The PyTorch example (bindings/python/examples/torch_pipeline.py) trains a
# small model on 4 processes with libtessel's schedule for two placements,
# for one with recomputation and for the best placement `tessel explore`
# finds for a small profile, and must match the one-process training to
# 1e-9. Skipped (77) when the python3 given has no torch.
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
# recomputation: the search recomputes some forwards under a tight limit,
# the runtime drops their activations and runs them again in the backward
# (zbsplit: the weight block uses the recomputed graph too)
out=$("$py" "$example" --devices 4 --micro-batches 4 --steps 2 \
	--placement zbsplit --recompute --tessel "$cli" --timeout 90 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "FAIL: zbsplit --recompute exited $rc"; exit 1; }
printf '%s\n' "$out" | grep -q '^recompute: [1-9][0-9]* of [0-9]* forward micro-batches recomputed' || { echo "FAIL: --recompute: no forward recomputed"; exit 1; }
printf '%s\n' "$out" | grep -q '^max parameter difference ' || { echo "FAIL: --recompute: no difference line"; exit 1; }
# the best placement `tessel explore` finds for a model profile (every
# block on one device: no tensor-parallel cost given) trains unchanged
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/model.json" <<'EOF'
{"unit": "ms", "devices": 4, "memory_per_device": 8, "transfer": 0.1,
 "micro_batches": 4, "layers": [
  {"name": "embed", "forward": 0.5, "backward": 0.5, "weight": 0.4, "activation": 0.2, "parameters": 1},
  {"name": "l0", "forward": 1, "backward": 1, "weight": 0.9, "activation": 0.5, "parameters": 1},
  {"name": "l1", "forward": 1, "backward": 1, "weight": 0.9, "activation": 0.5, "parameters": 1},
  {"name": "l2", "forward": 1, "backward": 1, "weight": 0.9, "activation": 0.5, "parameters": 1},
  {"name": "l3", "forward": 1, "backward": 1, "weight": 0.9, "activation": 0.5, "parameters": 1},
  {"name": "l4", "forward": 1, "backward": 1, "weight": 0.9, "activation": 0.5, "parameters": 1},
  {"name": "l5", "forward": 1, "backward": 1, "weight": 0.9, "activation": 0.5, "parameters": 1},
  {"name": "head", "forward": 0.8, "backward": 0.8, "weight": 0.6, "activation": 0.3, "parameters": 1}]}
EOF
"$cli" explore "$tmp/model.json" --fast -q --top 3 -p "$tmp/best.json" || { echo "FAIL: explore"; exit 1; }
out=$("$py" "$example" --devices 4 --micro-batches 4 --steps 2 \
	--placement "$tmp/best.json" --tessel "$cli" --timeout 90 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "FAIL: the explored placement exited $rc"; exit 1; }
printf '%s\n' "$out" | grep -q '^max parameter difference ' || { echo "FAIL: explored placement: no difference line"; exit 1; }
# refusals are clear and come before any process starts
out=$("$py" "$example" --devices 4 --placement nosuch --tessel "$cli" 2>&1)
[ $? -eq 2 ] && printf '%s\n' "$out" | grep -q "unknown placement 'nosuch'" || { echo "FAIL: unknown placement: $out"; exit 1; }
exit 0
