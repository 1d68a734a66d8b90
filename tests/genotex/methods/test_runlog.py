"""The JSON-lines run log never holds a secret (:mod:`genotex.methods.runlog`)."""

from genotex.methods.runlog import RunLog, clip, read_log


def test_secrets_are_redacted_plain_and_json_escaped(tmp_path):
    secret = 'sk-"quoted"\\tail'
    log = RunLog(tmp_path / "log.jsonl", [secret])
    log.write("llm", reply=f"the key is {secret}", nested={"headers": [f"Bearer {secret}"]})
    log.close()
    text = (tmp_path / "log.jsonl").read_text()
    assert "quoted" not in text and text.count("[redacted]") == 2
    entry = read_log(tmp_path / "log.jsonl")[0]
    assert entry["event"] == "llm" and entry["reply"] == "the key is [redacted]"


def test_appends_and_ignores_writes_after_close(tmp_path):
    for _ in range(2):
        log = RunLog(tmp_path / "log.jsonl")
        log.write("run")
        log.close()
        log.write("dropped")
    assert [e["event"] for e in read_log(tmp_path / "log.jsonl")] == ["run", "run"]


def test_clip_keeps_both_ends():
    text = "a" * 50 + "b" * 50
    clipped = clip(text, 20)
    assert clipped.startswith("a" * 10) and clipped.endswith("b" * 10)
    assert "80 characters left out" in clipped


def test_write_once(tmp_path):
    log = RunLog(tmp_path / "log.jsonl")
    for _ in range(3):
        log.write_once("abc", "system_prompt", content="long text")
    log.close()
    assert [e["key"] for e in read_log(tmp_path / "log.jsonl")] == ["abc"]
