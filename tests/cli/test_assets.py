"""`vcoder assets npm-check`: the Bolt projects' npm cache reported by the CLI set-up runs (no registry needed)."""

from __future__ import annotations

import json


def test_npm_check_reports_each_build_package_and_fails_on_a_missing_one(tmp_path, capsys):
    from vcoder.cli import main
    from vcoder.sites.npm_cache import REQUIRED

    assert main(["assets", "npm-check", "--dir", str(tmp_path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report == {"dir": str(tmp_path), "packages": {name: False for name in REQUIRED}}

    # cacache's index names each packument by its registry URL (a scoped name with its slash escaped)
    index = tmp_path / "_cacache" / "index-v5" / "ab"
    index.mkdir(parents=True)
    keys = [
        f'"key":"make-fetch-happen:request-cache:https://registry.npmjs.org/{name.replace("/", "%2f")}"'
        for name in REQUIRED
    ]
    (index / "entries").write_text("\n".join(keys[1:]))
    assert main(["assets", "npm-check", "--dir", str(tmp_path)]) == 1
    assert json.loads(capsys.readouterr().out)["packages"] == {name: name != REQUIRED[0] for name in REQUIRED}
    (index / "entries").write_text("\n".join(keys))
    assert main(["assets", "npm-check", "--dir", str(tmp_path)]) == 0
    assert all(json.loads(capsys.readouterr().out)["packages"].values())
