#!/usr/bin/env python3
"""What `phasesim inspect` costs on a checkpoint of V4-Flash's size and shapes.

Writes a synthetic DeepSeek-V4-Flash checkpoint (MODEL.md section 9; DeepSeek's tensor names,
43 layers: 2 window-only, 21 CSA, 20 HCA; dim 4096, 64 query heads, head_dim 512, the
indexer's 64 x 128, 256 experts of FP4 per layer, FP8 attention weights with E8M0 block
scales, F32 compressors) as 44 sparse shards with their index: the compressors' position
biases, the sinks and (unless --sparse-gates) the gate projections get random values, every
other tensor is declared in the headers and left a hole of its file. Then it runs
`phasesim inspect` on it and prints the wall time, the peak memory, the bytes phasesim says
it read and, under strace, the bytes its read system calls returned.

    benchmarks/inspect_v4_flash.py [--phasesim build/phasesim] [--folder DIR] [--keep]
                                   [--sparse-gates] [--write-only]

Not part of the test suite (tests/cli/inspect_cli_test.cpp checks the same checkpoint's
bytes without timing it): it writes about 600 MB of random gates.
"""
import argparse
import array
import json
import math
import os
import random
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time

try:  # NumPy draws the 600 MB of gates in seconds; without it (--sparse-gates) Python's own do
    import numpy as np
except ImportError:
    np = None

LAYERS = 43
DIM = 4096
HEADS = 64
HEAD_DIM = 512
INDEX_HEADS = 64
INDEX_DIM = 128
Q_LORA = 1024
O_LORA = 1024
O_GROUPS = 8
EXPERTS = 256
INTER = 2048
RATIOS = [0, 0] + [4 if i % 2 == 0 else 128 for i in range(41)]
SIZES = {"F32": 4, "BF16": 2, "F8_E4M3": 1, "F8_E8M0": 1, "I8": 1}


def fp8_with_scale(name, rows, columns):
    """An FP8 weight [rows, columns] and its 128 x 128 block scales (E8M0)."""
    base = name[: -len(".weight")]
    return [(name, "F8_E4M3", [rows, columns]),
            (base + ".scale", "F8_E8M0", [-(-rows // 128), -(-columns // 128)])]


def layer_tensors(layer):
    p = f"layers.{layer}."
    a = p + "attn."
    t = [(p + "attn_norm.weight", "F32", [DIM]), (p + "ffn_norm.weight", "F32", [DIM]),
         (a + "attn_sink", "F32", [HEADS]), (a + "q_norm.weight", "F32", [Q_LORA]),
         (a + "kv_norm.weight", "F32", [HEAD_DIM])]
    t += fp8_with_scale(a + "wq_a.weight", Q_LORA, DIM)
    t += fp8_with_scale(a + "wq_b.weight", HEADS * HEAD_DIM, Q_LORA)
    t += fp8_with_scale(a + "wkv.weight", HEAD_DIM, DIM)
    t += fp8_with_scale(a + "wo_a.weight", O_GROUPS * O_LORA, HEADS * HEAD_DIM // O_GROUPS)
    t += fp8_with_scale(a + "wo_b.weight", DIM, O_GROUPS * O_LORA)
    ratio = RATIOS[layer]
    if ratio:
        coff = 2 if ratio == 4 else 1
        c = a + "compressor."
        t += [(c + "ape", "F32", [ratio, coff * HEAD_DIM]),
              (c + "wgate.weight", "F32", [coff * HEAD_DIM, DIM]),
              (c + "wkv.weight", "F32", [coff * HEAD_DIM, DIM]),
              (c + "norm.weight", "F32", [HEAD_DIM])]
    if ratio == 4:
        i = a + "indexer."
        t += [(i + "compressor.ape", "F32", [4, 2 * INDEX_DIM]),
              (i + "compressor.wgate.weight", "F32", [2 * INDEX_DIM, DIM]),
              (i + "compressor.wkv.weight", "F32", [2 * INDEX_DIM, DIM]),
              (i + "compressor.norm.weight", "F32", [INDEX_DIM]),
              (i + "weights_proj.weight", "BF16", [INDEX_HEADS, DIM])]
        t += fp8_with_scale(i + "wq_b.weight", INDEX_HEADS * INDEX_DIM, Q_LORA)
    for e in range(EXPERTS):  # FP4 packed two to a byte, an E8M0 scale per 32
        x = f"{p}ffn.experts.{e}."
        for w, rows, columns in (("w1", INTER, DIM), ("w3", INTER, DIM), ("w2", DIM, INTER)):
            t += [(x + w + ".weight", "I8", [rows, columns // 2]),
                  (x + w + ".scale", "F8_E8M0", [rows, columns // 32])]
    return t


def normals(count, scale, rng):
    """`count` little-endian float32 N(0, scale^2) draws."""
    if np is not None:
        return np.random.default_rng(rng.getrandbits(64)).normal(0, scale, count).astype("<f4").tobytes()
    values = array.array("f", (rng.gauss(0, scale) for _ in range(count)))
    if sys.byteorder != "little":
        values.byteswap()
    return values.tobytes()


def random_values(name, shape, rng, sparse_gates):
    """Random bytes for what inspect reads, None (a hole) for the rest."""
    count = math.prod(shape)
    if name.endswith((".ape", "attn_sink")):
        return normals(count, 0.5, rng)
    if name.endswith("compressor.wgate.weight") and not sparse_gates:
        if np is None:
            sys.exit("inspect_v4_flash.py: random gate projections need NumPy (or --sparse-gates)")
        return normals(count, 0.02, rng)
    return None


def write_shard(path, tensors, rng, sparse_gates):
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, dtype, shape in tensors:
        size = math.prod(shape) * SIZES[dtype]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    start = 8 + len(text)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, dtype, shape in tensors:
            data = random_values(name, shape, rng, sparse_gates)
            if data is not None:
                f.seek(start + header[name]["data_offsets"][0])
                f.write(data)
        f.truncate(start + offset)
    return start + offset


def write_checkpoint(folder, sparse_gates):
    rng = random.Random(1)
    os.makedirs(folder, exist_ok=True)
    weight_map, total = {}, 0
    shards = [(f"model-{l + 1:05d}-of-00044.safetensors", layer_tensors(l)) for l in range(LAYERS)]
    shards.append(("model-00044-of-00044.safetensors",
                   [("embed.weight", "BF16", [129280, DIM]), ("head.weight", "BF16", [129280, DIM]),
                    ("norm.weight", "F32", [DIM])]))
    for name, tensors in shards:
        total += write_shard(os.path.join(folder, name), tensors, rng, sparse_gates)
        weight_map.update({t[0]: name for t in tensors})
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f)
    config = {"n_layers": LAYERS, "compress_ratios": RATIOS + [0, 0, 0], "dim": DIM,
              "n_heads": HEADS, "head_dim": HEAD_DIM, "index_n_heads": INDEX_HEADS,
              "index_head_dim": INDEX_DIM, "index_topk": 512, "window_size": 128,
              "q_lora_rank": Q_LORA, "o_lora_rank": O_LORA, "o_groups": O_GROUPS}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)
    return total


def strace_bytes(command):
    """The bytes the read system calls of `command` returned, counted by strace."""
    with tempfile.NamedTemporaryFile(suffix=".strace") as log:
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=read,pread64", "-o", log.name] + command,
                       check=True, stdout=subprocess.DEVNULL)
        total = 0
        for line in open(log.name):
            value = line.rsplit("=", 1)[-1].split()[0]
            if value.lstrip("-").isdigit() and int(value) > 0:
                total += int(value)
        return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phasesim", default="build/phasesim")
    parser.add_argument("--folder", help="where to write the checkpoint (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the checkpoint")
    parser.add_argument("--sparse-gates", action="store_true", help="leave the gate projections holes")
    parser.add_argument("--write-only", action="store_true",
                        help="write the checkpoint (kept) and stop: the README's example")
    args = parser.parse_args()
    folder = args.folder or tempfile.mkdtemp(prefix="phasesim-v4-flash-")
    try:
        started = time.perf_counter()
        total = write_checkpoint(folder, args.sparse_gates)
        print(f"wrote {folder}: {total / 2**30:.1f} GiB declared in 44 shards "
              f"({time.perf_counter() - started:.1f} s)")
        if args.write_only:
            return 0
        command = [args.phasesim, "inspect", folder, "--json", "-"]
        started = time.perf_counter()
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        doc = json.loads(done.stdout)
        stack = doc["summary"]
        print(f"phasesim inspect: {seconds:.2f} s wall, peak RSS {peak:.0f} MiB, "
              f"bytes_read {doc['checkpoint']['bytes_read'] / 2**20:.1f} MiB "
              f"of {doc['checkpoint']['total_bytes'] / 2**30:.1f} GiB; "
              f"stack best {stack['best']:.4f} worst {stack['worst']:.4f}")
        if shutil.which("strace"):
            print(f"strace: read and pread64 returned {strace_bytes(command) / 2**20:.1f} MiB "
                  "(the binary's own files included)")
    finally:
        if not args.keep and not args.folder and not args.write_only:
            shutil.rmtree(folder)


if __name__ == "__main__":
    sys.exit(main())
