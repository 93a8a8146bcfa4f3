"""The plpython3u bridge: the server imports the python/ package and its compiled dependencies."""

import stash


def test_server_imports_the_package_and_reports_its_version(conn):
    info = conn.execute("select stash.python_info()").fetchone()[0]
    assert info["stash"] == stash.__version__


def test_server_runs_debians_interpreter_with_numpy_and_onnxruntime(conn):
    info = conn.execute("select stash.python_info()").fetchone()[0]
    # plpython3u embeds Debian's libpython; the wheels must be built for that interpreter.
    assert info["python"].startswith("3.11.")
    assert set(info["modules"]) == {"numpy", "onnxruntime", "tokenizers", "openai"}
    assert all(version for version in info["modules"].values())


def test_server_modules_really_work(conn):
    # Import is not enough: run numpy and onnxruntime inside a backend.
    result = conn.execute(
        """
        do $$
        import numpy, onnxruntime
        assert float(numpy.linalg.norm(numpy.array([3.0, 4.0]))) == 5.0
        assert 'CPUExecutionProvider' in onnxruntime.get_available_providers()
        $$ language plpython3u
        """
    )
    assert result.statusmessage == "DO"
