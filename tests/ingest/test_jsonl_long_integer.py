"""A JSONL line whose integer is too long for Python to convert is one rejected row, the rest are kept."""

from costmodel.ingest import IngestOptions, load


def test_jsonl_line_with_overlong_integer_is_rejected_and_rest_kept(tmp_path):
    f = tmp_path / "steps.jsonl"
    f.write_text(
        '{"step": 1, "samples_per_s": 100.0}\n'
        '{"step": 2, "samples_per_s": ' + "9" * 5000 + "}\n"
        '{"step": 3, "samples_per_s": 102.5}\n',
        encoding="utf-8",
    )
    (run,) = load(f, IngestOptions(fmt="jsonl"))
    assert run.table["step"].tolist() == [1, 3]
    assert run.table["samples_per_s"].tolist() == [100.0, 102.5]
    assert [r.line for r in run.rejected] == [2]
    assert "not valid JSON" in run.rejected[0].reason
    assert "integer string conversion" in run.rejected[0].reason
