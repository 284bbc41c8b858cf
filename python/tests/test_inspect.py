"""phasesim.inspect on checkpoints written here with NumPy (safetensors by hand, both tensor-name
spellings, F32 and BF16, sharded and not, a bias planted on known slots): the CLI's document,
the planted phases, the saved architecture rerun by niah, and a refusal as ValueError.

Run by ctest (python_module) with PYTHONPATH=build/python and PHASESIM_CLI=build/phasesim."""
import json
import os
import struct
import subprocess
import tempfile

import numpy as np
import pytest

import phasesim

CLI = os.environ.get("PHASESIM_CLI", os.path.join(os.path.dirname(__file__), "../../build/phasesim"))

RATIOS = [0, 4, 8]  # window-only, CSA (W 8, S 4), HCA (W = S = 8)
HEAD_DIM, HIDDEN = 4, 8


def as_bytes(values, dtype):
    values = np.asarray(values, dtype="<f4")
    if dtype == "F32":
        return values.tobytes()
    return (values.view("<u4") >> 16).astype("<u2").tobytes()  # BF16: exact for these values


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, dtype, array in tensors:
        blob = as_bytes(array, dtype)
        header[name] = {"dtype": dtype, "shape": list(np.shape(array)),
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def planted_bias(layer, ratio):
    """[m, coff d]: channel c's logit 4 on slot (layer + c) mod W; CSA's newer slots read d + c."""
    coff = 2 if ratio == 4 else 1
    bias = np.zeros((ratio, coff * HEAD_DIM))
    for c in range(HEAD_DIM):
        slot = (layer + c) % (coff * ratio)
        bias[slot % ratio, HEAD_DIM + c if slot >= ratio else c] = 4.0
    return bias


def write_checkpoint(folder, deepseek=True, dtype="F32", shards=1):
    os.makedirs(folder)
    tensors = []
    for layer, ratio in enumerate(RATIOS):
        p = f"layers.{layer}.attn." if deepseek else f"model.layers.{layer}.self_attn."
        tensors.append((p + ("attn_sink" if deepseek else "sinks"), "F32", np.full(2, layer)))
        if ratio == 0:
            continue
        coff = 2 if ratio == 4 else 1
        tensors.append((p + ("compressor.ape" if deepseek else "compressor.position_bias"), dtype,
                        planted_bias(layer, ratio)))
        tensors.append((p + ("compressor.wgate.weight" if deepseek else "compressor.gate_proj.weight"),
                        dtype, np.ones((coff * HEAD_DIM, HIDDEN))))
        if ratio == 4:
            tensors.append((p + ("indexer.compressor.ape" if deepseek else "compressor.indexer.position_bias"),
                            dtype, np.zeros((4, 4))))
            tensors.append((p + ("indexer.compressor.wgate.weight" if deepseek
                                 else "compressor.indexer.gate_proj.weight"), dtype, np.ones((4, HIDDEN))))
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    else:
        files = [f"model-{s + 1}.safetensors" for s in range(shards)]
        for s, name in enumerate(files):
            write_safetensors(os.path.join(folder, name), tensors[s::shards])
        weight_map = {t[0]: files[i % shards] for i, t in enumerate(tensors)}
        with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
            json.dump({"weight_map": weight_map}, f)
    if deepseek:
        config = {"n_layers": 3, "compress_ratios": RATIOS, "head_dim": HEAD_DIM, "dim": HIDDEN,
                  "n_heads": 2, "index_head_dim": 2}
    else:
        kinds = {0: "sliding_attention", 4: "compressed_sparse_attention", 8: "heavily_compressed_attention"}
        config = {"num_hidden_layers": 3, "layer_types": [kinds[r] for r in RATIOS],
                  "compress_rates": {"compressed_sparse_attention": 4, "heavily_compressed_attention": 8},
                  "head_dim": HEAD_DIM, "hidden_size": HIDDEN, "num_attention_heads": 2, "index_head_dim": 2}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)


@pytest.mark.parametrize("deepseek,dtype,shards", [(True, "F32", 1), (False, "BF16", 2)])
def test_inspect_document_equals_the_cli_and_finds_the_planted_phases(deepseek, dtype, shards):
    with tempfile.TemporaryDirectory() as root:
        folder = os.path.join(root, "ckpt")
        write_checkpoint(folder, deepseek, dtype, shards)
        doc = phasesim.inspect(folder, beta=6.0, context=8192)
        cli = subprocess.run([CLI, "inspect", folder, "--beta", "6", "--context", "8192", "--json", "-"],
                             capture_output=True, text=True, check=True)
        assert json.loads(json.dumps(doc, default=lambda a: a.tolist())) == json.loads(cli.stdout)
        assert doc["checkpoint"]["spelling"] == ("deepseek" if deepseek else "transformers")
        csa, hca = doc["layers"][1]["compressor"], doc["layers"][2]["compressor"]
        assert list(csa["covered_phases"]) == [0, 1, 2, 3]  # slots 1..4 of W 8, S 4
        assert list(hca["covered_phases"]) == [2, 3, 4, 5]  # slots 2..5 of W = S = 8
        assert list(hca["blind_phases"]) == [0, 1, 6, 7]
        # Rows of ones: tau = sqrt(hidden), the content noise of a unit-variance token.
        assert csa["content_noise"]["rms"] == pytest.approx(np.sqrt(HIDDEN), rel=1e-12)
        assert list(doc["stack_layers"]) == [1, 2]


def test_saved_architecture_reruns_to_the_stack_table():
    with tempfile.TemporaryDirectory() as root:
        folder = os.path.join(root, "ckpt")
        write_checkpoint(folder)
        saved = os.path.join(root, "saved.toml")
        doc = phasesim.inspect(folder, beta=6.0, context=8192, save_arch=saved)
        rerun = phasesim.niah(arch=saved, engine="analytic", beta=6.0, context=8192)
        assert [g["accuracy"] for g in rerun["groups"]] == [g["accuracy"] for g in doc["groups"]]


def test_refusals_raise_value_error_with_the_cli_line():
    with tempfile.TemporaryDirectory() as root:
        missing = os.path.join(root, "none")
        with pytest.raises(ValueError, match=r"^phasesim inspect: cannot read checkpoint '.*none' \(no such file or folder\)$"):
            phasesim.inspect(missing)
        folder = os.path.join(root, "ckpt")
        write_checkpoint(folder)
        config = os.path.join(folder, "config.json")
        with pytest.raises(ValueError, match="the same file as the input .*config.json: writing it would destroy the input"):
            phasesim.inspect(folder, save_arch=config)
