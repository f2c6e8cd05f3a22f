"""The CLI's summarize command (one row per head, as a table or one JSON line, texts read as written) and the
commands on one text given as token ids or tokens (a folder without a tokenizer)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import cli_helpers  # noqa: E402
import hf_folders  # noqa: E402
import hf_tiny  # noqa: E402

hf_tiny.require_hf_extra()

from explorer.core.debug.head_summaries import SCORES, summarize_heads  # noqa: E402
from explorer.core.inspect.opening import open_model  # noqa: E402


@pytest.fixture(scope="module")
def bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hf_tiny.folder("bert", tmp_path_factory.getbasetemp() / "hf_tiny")


_run = cli_helpers.run_cli


def test_summarize_json_has_one_row_per_head_equal_to_the_core(bert: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "texts.txt"
    data.write_text("the cat sat on the mat .\na dog ran in the park .\n", encoding="utf-8")
    code, out, err = _run(capsys, "summarize", "--model", str(bert), "--data", str(data), "--json")
    assert code == 0 and err == ""
    result = json.loads(out.strip().splitlines()[-1])
    assert result["texts"] == 2 and result["unknown_tokens"] == 0 and len(result["heads"]) == 2 * 4
    assert set(SCORES) <= set(result["heads"][0])
    expected = summarize_heads(open_model(bert), [("the cat sat on the mat .", ""), ("a dog ran in the park .", "")])
    got = np.array([[r["offset"], r["special"], r["first"]] for r in result["heads"]], dtype=float)
    want = np.array([[r["offset"], r["special"], r["first"]] for r in expected.rows()], dtype=float)
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_summarize_table_and_the_unknown_token_warning(bert: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "texts.txt"
    data.write_text("Zebras and quokkas sat on the mat .\n", encoding="utf-8")
    code, out, err = _run(capsys, "summarize", "--model", str(bert), "--data", str(data))
    lines = out.splitlines()
    assert code == 0 and lines[2].split()[:5] == ["kind", "layer", "head", "entropy", "offset"]
    assert len(lines) == 3 + 8 and all(line.startswith("encoder") for line in lines[3:])
    assert err.startswith("warning: ") and "[UNK]" in err and len(err.splitlines()) == 1


def test_token_ids_open_a_folder_without_a_tokenizer(bert: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = hf_folders.no_tokenizer(hf_folders.copied(bert, tmp_path / "m"))
    code, out, err = _run(capsys, "attention", "--model", str(folder), "--source", "the cat",
                          "--out", str(tmp_path / "a.npz"))
    assert code == 2 and err.startswith("error: ") and "--token-ids" in err and len(err.splitlines()) == 1
    code, out, err = _run(capsys, "attention", "--model", str(folder), "--token-ids", "2,5,6,3",
                          "--out", str(tmp_path / "a.npz"), "--json")
    assert code == 0 and json.loads(out)["source_tokens"] == 4
    with np.load(tmp_path / "a.npz") as saved:
        assert list(saved["source_tokens"]) == ["2", "5", "6", "3"]
    code, out, err = _run(capsys, "attention", "--model", str(folder), "--token-ids", "2,x",
                          "--out", str(tmp_path / "a.npz"))
    assert code == 2 and err.startswith("error: ") and "token ids" in err


def test_tokens_are_read_as_given(bert: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "attention", "--model", str(bert), "--tokens", "[CLS] cat ##s [SEP]",
                          "--out", str(tmp_path / "t.npz"))
    assert code == 0 and "4 tokens: [CLS] cat ##s [SEP]" in out


def test_summarize_lines_of_tokens_read_as_given(bert: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "tokens.txt"
    data.write_text("[CLS] cat ##s sat [SEP]\n", encoding="utf-8")
    code, out, err = _run(capsys, "summarize", "--model", str(bert), "--data", str(data), "--lines", "tokens", "--json")
    assert code == 0 and err == ""
    from explorer.core.inspect.given_tokens import GivenTokens

    expected = summarize_heads(open_model(bert), [(GivenTokens(tokens=("[CLS]", "cat", "##s", "sat", "[SEP]")), "")])
    assert [r["offset"] for r in json.loads(out)["heads"]] == [r["offset"] for r in expected.rows()]
    code, out, err = _run(capsys, "summarize", "--model", str(bert), "--data", str(data), "--lines", "ids")
    assert code == 2 and err.startswith("error: line 1 of --data") and len(err.splitlines()) == 1
