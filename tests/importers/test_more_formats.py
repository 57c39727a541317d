"""lm-evaluation-harness, DeepEval and the table exports of hosted platforms (issue 22 item 4),
on the real tools' output in tests/fixtures/ and the worked exports of docs/exports/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.core.importers import ImportOptions, read_external
from flipgate.core.importers.completeness import Tally
from tests.importers.conftest import deepeval_run, lm_eval_results

EXPORTS = Path(__file__).resolve().parents[2] / "docs" / "exports"


# --- lm-evaluation-harness -----------------------------------------------------------------------


def test_lm_eval_a_case_per_document_and_a_rule_per_metric_and_filter() -> None:
    run = read_external(lm_eval_results("candidate"))
    records = {r["case"]: r for r in run.records}
    assert len(records) == 24  # 12 documents x 2 tasks
    assert records["triage_gen/3"]["passed"] == {
        "exact_match,strict": False,  # "I would send this to billing."
        "exact_match,flexible": True,
    }
    assert records["triage_mc/1"]["passed"] == {"acc,none": False}
    assert run.manifest["key"] == {
        "model": "scripted(arm=candidate)",
        "prompt": read_external(lm_eval_results("baseline")).manifest["key"]["prompt"],
        "judge": "none",
        "eval_set": "triage_gen@2.0, triage_mc@1.0",
        "harness": "lm-eval@0.4.13",
        "code": "git@f7d73ae",
    }
    assert run.completeness is not None and run.completeness.finished is True


def test_lm_eval_a_samples_file_brings_its_results_file() -> None:
    results = lm_eval_results("baseline")
    [samples] = results.parent.glob("samples_triage_mc_*.jsonl")
    assert read_external(samples).records == read_external(results).records


def test_lm_eval_a_missing_samples_file_or_document_is_said(tmp_path: Path) -> None:
    results = lm_eval_results("baseline")
    for source in results.parent.iterdir():
        (tmp_path / source.name).write_bytes(source.read_bytes())
    [gen] = tmp_path.glob("samples_triage_gen_*.jsonl")
    lines = gen.read_text().splitlines()
    gen.write_text("\n".join(line for line in lines if '"doc_id": 5,' not in line) + "\n")
    run = read_external(tmp_path / results.name)
    assert run.completeness is not None
    assert run.completeness.cases == {"triage_gen/5": Tally(expected=1, present=0)}
    assert run.completeness.finished is False
    gen.unlink()
    with pytest.raises(InputError, match="--log_samples") as error:
        read_external(tmp_path / results.name)
    assert error.value.field == "configs.triage_gen"


def test_lm_eval_a_corpus_metric_cannot_be_gated_per_document(tmp_path: Path) -> None:
    results = lm_eval_results("baseline")
    for source in results.parent.iterdir():
        text = source.read_text()
        if source.name.startswith("samples_triage_mc"):
            text = text.replace('"acc": 1.0', '"acc": ["a reference", "a prediction"]', 1)
        (tmp_path / source.name).write_text(text)
    with pytest.raises(InputError, match="no per-document score") as error:
        read_external(tmp_path / results.name)
    assert error.value.field == "line 1.acc"


# --- DeepEval ----------------------------------------------------------------------------------


def test_deepeval_cases_metrics_errors_and_the_judge() -> None:
    run = read_external(deepeval_run("candidate"))
    records = {r["case"]: r for r in run.records}
    assert records["annual-refund"]["passed"] == {
        "Exact Queue": False,
        "Brevity": False,
        "Policy Check": True,
    }
    assert records["annual-refund"]["scores"]["Brevity"] == {"score": 0.4, "threshold": 0.5}
    errored = records["lost-2fa"]
    assert (errored["status"], errored["infra"]) == (
        "infra",
        "Policy Check: ConnectionError: policy service unreachable",
    )
    assert run.manifest["key"]["judge"] == "policy-service, rules: exact queue match"
    assert run.completeness is not None and run.completeness.finished is None


def test_deepeval_a_loosened_threshold_moves_the_key(tmp_path: Path) -> None:
    doc = json.loads(deepeval_run("candidate").read_text())
    for case in doc["testCases"]:
        case["metricsData"][1]["threshold"] = 0.3
    loosened = tmp_path / "test_run_x.json"
    loosened.write_text(json.dumps(doc))
    before = read_external(deepeval_run("candidate")).manifest["key"]
    assert read_external(loosened).manifest["key"]["rules"] != before["rules"]


def test_deepeval_a_case_without_a_name_is_refused(tmp_path: Path) -> None:
    doc = json.loads(deepeval_run("baseline").read_text())
    doc["testCases"][2]["name"] = None
    log = tmp_path / "test_run_x.json"
    log.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="needs a name") as error:
        read_external(log)
    assert error.value.field == "testCases[2]"


# --- table exports -----------------------------------------------------------------------------

WORKED = {
    "langsmith.csv": [
        "--case-column",
        "example_id",
        "--score-column",
        "feedback.correctness",
        "--score-column",
        "feedback.concise",
        "--error-column",
        "error",
    ],
    "braintrust.jsonl": [
        "--case-column",
        "input.ticket_id",
        "--score-column",
        "scores.ExactMatch",
        "--score-column",
        "scores.Factuality",
        "--pass-threshold",
        "0.5",
        "--error-column",
        "error",
    ],
    "mlflow.parquet": [
        "--case-column",
        "inputs.question_id",
        "--score-column",
        "correctness/value",
        "--score-column",
        "safety/value",
    ],
    "langfuse.csv": ["--case-column", "datasetItemId", "--score-column", "correctness"],
}
EXPECTED = {  # (case, rep) -> pass / fail / infra, read off each file by eye
    "langsmith.csv": ["pass", "pass", "fail", "fail", "infra", "pass"],
    "braintrust.jsonl": ["pass", "pass", "fail", "infra"],
    "mlflow.parquet": ["pass", "fail", "fail"],
    "langfuse.csv": ["fail", "pass", "pass", "pass"],
}


@pytest.mark.parametrize("export", sorted(WORKED))
def test_each_worked_export_of_the_docs_imports_as_documented(export: str, tmp_path: Path) -> None:
    assert main(["import", str(EXPORTS / export), str(tmp_path / "run"), *WORKED[export]]) == 0
    lines = (tmp_path / "run/results.jsonl").read_text().splitlines()
    states = []
    for record in map(json.loads, lines):
        if record.get("status") == "infra":
            states.append("infra")
        else:
            states.append("pass" if all(record["passed"].values()) else "fail")
    assert states == EXPECTED[export]


def test_a_table_needs_its_columns_named(tmp_path: Path) -> None:
    with pytest.raises(InputError) as error:
        read_external(EXPORTS / "langfuse.csv")
    assert error.value.field == "--case-column"
    with pytest.raises(InputError, match="no column 'item'") as error:
        read_external(
            EXPORTS / "langfuse.csv", ImportOptions(case_column="item", score_column=("x",))
        )


@pytest.mark.parametrize(
    ("cell", "said"),
    [("maybe", "'maybe' is no score"), ("", "no score, and no error said why")],
)
def test_a_score_cell_that_is_no_verdict_names_its_row_and_column(
    cell: str, said: str, tmp_path: Path
) -> None:
    table = tmp_path / "t.csv"
    table.write_text(f"case,score\na,yes\nb,{cell}\n")
    with pytest.raises(InputError, match=said) as error:
        read_external(table, ImportOptions(case_column="case", score_column=("score",)))
    assert error.value.field == "row 2.score"


def test_a_table_s_words_and_numbers_read_plainly(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("case,rep,verdict\na,0,PASS\na,1,no\nb,0,True\nb,1,fail\n")
    run = read_external(
        table, ImportOptions(case_column="case", rep_column="rep", score_column=("verdict",))
    )
    assert [r["passed"]["verdict"] for r in run.records] == [True, False, True, False]
