"""What the index tells the crawler about the files it holds, in one call into the shim."""

from __future__ import annotations

from pylucene_mcp import Index
from pylucene_mcp.engine.core.documents import FileState, content_hash


def test_file_states_under_folders_and_of_paths(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        for path, size, mtime in [
            ("/r/a/one.txt", 10, 1_000),
            ("/r/a/two.txt", 20, 2_000),
            ("/r/ab/beside.txt", 30, 3_000),  # shares the text prefix "/r/a", not the folder
            ("/r/b/gone.txt", 40, 4_000),
            ("/r/b/café.txt", None, None),  # no size nor mtime recorded
        ]:
            doc = {"file_path": path, "content": f"text of {path}"}
            if size is not None:
                doc |= {"file_size": size, "file_mtime": mtime}
            w.add(doc)
    with fresh_index.writer() as w:
        w.delete("/r/b/gone.txt")
        w.touch("/r/a/two.txt", 2_500)  # in place: the mtime seen changes, nothing else
    fresh_index.refresh()

    under_a = fresh_index.file_states(["/r/a"])
    assert under_a == {
        "/r/a/one.txt": FileState(10, 1_000, content_hash("text of /r/a/one.txt")),
        "/r/a/two.txt": FileState(20, 2_500, content_hash("text of /r/a/two.txt")),
    }
    assert set(fresh_index.file_states(["/r/b/", "/r/ab"])) == {"/r/b/café.txt", "/r/ab/beside.txt"}
    assert fresh_index.file_states(["/r/b"])["/r/b/café.txt"] == FileState(
        None, None, content_hash("text of /r/b/café.txt")
    )
    found = fresh_index.file_states_of(["/r/a/one.txt", "/r/b/gone.txt", "/nowhere.txt"])
    assert found == {"/r/a/one.txt": under_a["/r/a/one.txt"]}
    assert fresh_index.file_states_of([]) == {} and fresh_index.file_states([]) == {}
