"""A PEP 517 build backend for the stride package that needs nothing but
Python's standard library: it writes the wheel (the package's .py files and
its metadata) with zipfile, so that pip builds it without downloading
setuptools. The name, version, dependencies and entry points come from
pyproject.toml (read with tomllib where there is one, else with the small
reader below, which knows only the tables that file uses)."""

import base64
import hashlib
import os
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "stride"
TAG = "py3-none-any"


def read_project():
    """(project table, {entry point group: {name: target}})."""
    path = os.path.join(ROOT, "pyproject.toml")
    try:
        import tomllib

        with open(path, "rb") as f:
            data = tomllib.load(f)
        project = data["project"]
        return project, project.get("entry-points", {})
    except ImportError:
        return read_project_plainly(path)


def read_project_plainly(path):
    """pyproject.toml's [project] keys (strings and lists of strings) and its
    [project.entry-points.GROUP] tables, without tomllib (Python < 3.11)."""
    import ast

    project, groups, table = {}, {}, None
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            table = line.strip("[]")
            continue
        key, _, value = (part.strip() for part in line.partition("="))
        value = ast.literal_eval(value)
        if table == "project":
            project[key] = value
        elif table and table.startswith("project.entry-points."):
            groups.setdefault(table[len("project.entry-points."):], {})[key] = value
    return project, groups


def metadata(project):
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}",
             f"Version: {project['version']}",
             f"Summary: {project.get('description', '')}"]
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def entry_points(groups):
    text = ""
    for group, entries in groups.items():
        text += f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items())
    return text


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{name},sha256={digest.decode()},{len(data)}"


def package_files():
    for folder, _, files in os.walk(os.path.join(ROOT, PACKAGE)):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, ROOT).replace(os.sep, "/"), path


def write_wheel(wheel_directory, contents):
    """A wheel of `contents` ((name in the wheel, bytes) pairs) plus the
    project's metadata; returns its file name."""
    project, groups = read_project()
    name, version = project["name"], project["version"]
    dist_info = f"{name}-{version}.dist-info"
    wheel_name = f"{name}-{version}-{TAG}.whl"
    contents = list(contents) + [
        (f"{dist_info}/METADATA", metadata(project).encode()),
        (f"{dist_info}/WHEEL", ("Wheel-Version: 1.0\nGenerator: stride_build\n"
                                f"Root-Is-Purelib: true\nTag: {TAG}\n").encode()),
        (f"{dist_info}/entry_points.txt", entry_points(groups).encode()),
    ]
    records = [record_line(arcname, data) for arcname, data in contents]
    records.append(f"{dist_info}/RECORD,,")
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w",
                         zipfile.ZIP_DEFLATED) as wheel:
        for arcname, data in contents:
            wheel.writestr(arcname, data)
        wheel.writestr(f"{dist_info}/RECORD", "\n".join(records) + "\n")
    return wheel_name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    def files():
        for arcname, path in package_files():
            with open(path, "rb") as f:
                yield arcname, f.read()

    return write_wheel(wheel_directory, files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """An editable install: a .pth file that puts python/ on the path."""
    return write_wheel(wheel_directory, [(f"{PACKAGE}.pth", (ROOT + "\n").encode())])


def get_requires_for_build_wheel(config_settings=None):
    return []


get_requires_for_build_editable = get_requires_for_build_wheel
