#!/usr/bin/python3
"""Validate a META.json against the PGXN Meta Spec 1.0 (https://pgxn.org/meta/spec.txt).

Written from the spec and its v1 JSON schemas (the rules of distribution,
extension, license, prereqs, version and term), with the standard library alone
so that it runs on a bare Debian machine: Debian packages no PGXN validator.

    pgxn_meta_check.py META.json [DIST_DIR]   exit 0 when valid, 1 with the faults
    pgxn_meta_check.py --self-test            the checker rejects broken documents

With DIST_DIR, the files META.json names must exist in it.
"""
import copy
import json
import os
import re
import sys

# SemVer 2.0.0, as the spec's version schema.
SEMVER = (r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
          r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
          r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?")
VERSION_RE = re.compile("^" + SEMVER + "$")
RANGE_ONE = r"(?:(?:[=!]=|[<>]=?)\s*)?" + SEMVER
RANGE_RE = re.compile("^(?:" + RANGE_ONE + "|0)(?:," + r"\s*" + RANGE_ONE + ")*$")
TERM_RE = re.compile(r"^[^/\\\s\x00-\x1f\x7f]{2,}$")
CUSTOM_RE = re.compile(r"^[xX]_.")
LICENSES = {
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd",
    "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit",
    "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay",
    "sun", "zlib", "open_source", "restricted", "unrestricted", "unknown",
}
TOP_KEYS = {"name", "version", "abstract", "maintainer", "license", "provides", "meta-spec",
            "description", "generated_by", "tags", "no_index", "prereqs", "release_status",
            "resources"}
REQUIRED = ["name", "version", "abstract", "maintainer", "license", "provides", "meta-spec"]
PHASES = {"configure", "build", "test", "runtime", "develop"}
RELATIONS = {"requires", "recommends", "suggests", "conflicts"}


def nonempty_string(v):
    return isinstance(v, str) and len(v) > 0


def relative_path(v):
    return nonempty_string(v) and not v.startswith("/") and "\\" not in v and ".." not in v.split("/")


def check_keys(obj, allowed, where, faults):
    for k in obj:
        if k not in allowed and not CUSTOM_RE.match(k):
            faults.append(f"{where}: unknown key {k!r}")


def check_license(v, faults):
    if isinstance(v, str):
        if v not in LICENSES:
            faults.append(f"license: {v!r} is not one of the spec's license strings")
    elif isinstance(v, list):
        if not v or any(x not in LICENSES for x in v):
            faults.append(f"license: {v!r} must be a non-empty list of the spec's license strings")
    elif isinstance(v, dict):
        if not v or any(not (nonempty_string(u) and re.match(r"^[a-z][a-z0-9+.-]*:", u)) for u in v.values()):
            faults.append("license: an object must map license names to URIs")
    else:
        faults.append("license: must be a string, a list or an object")


def check_prereqs(v, faults):
    if not isinstance(v, dict) or not v:
        faults.append("prereqs: must be a non-empty object")
        return
    check_keys(v, PHASES, "prereqs", faults)
    for phase, rels in v.items():
        if CUSTOM_RE.match(phase):
            continue
        if not isinstance(rels, dict) or not rels:
            faults.append(f"prereqs.{phase}: must be a non-empty object")
            continue
        check_keys(rels, RELATIONS, f"prereqs.{phase}", faults)
        for rel, reqs in rels.items():
            if CUSTOM_RE.match(rel):
                continue
            if not isinstance(reqs, dict):
                faults.append(f"prereqs.{phase}.{rel}: must map names to version ranges")
                continue
            for name, rng in reqs.items():
                if not TERM_RE.match(name):
                    faults.append(f"prereqs.{phase}.{rel}: {name!r} is not a term")
                if not (rng == 0 or (isinstance(rng, str) and RANGE_RE.match(rng))):
                    faults.append(f"prereqs.{phase}.{rel}.{name}: {rng!r} is not a version range")


def validate(meta, dist_dir=None):
    faults = []
    if not isinstance(meta, dict):
        return ["the document is not a JSON object"]
    for k in REQUIRED:
        if k not in meta:
            faults.append(f"missing required key {k!r}")
    check_keys(meta, TOP_KEYS, "META.json", faults)
    if "name" in meta and not (isinstance(meta["name"], str) and TERM_RE.match(meta["name"])):
        faults.append(f"name: {meta['name']!r} is not a term (2+ characters, no slash, space or control)")
    if "version" in meta and not (isinstance(meta["version"], str) and VERSION_RE.match(meta["version"])):
        faults.append(f"version: {meta['version']!r} is not a SemVer")
    for k in ("abstract", "description", "generated_by"):
        if k in meta and not nonempty_string(meta[k]):
            faults.append(f"{k}: must be a non-empty string")
    m = meta.get("maintainer")
    if "maintainer" in meta and not (nonempty_string(m) or (isinstance(m, list) and m and all(map(nonempty_string, m)))):
        faults.append("maintainer: must be a non-empty string or list of them")
    if "license" in meta:
        check_license(meta["license"], faults)
    ms = meta.get("meta-spec")
    if "meta-spec" in meta:
        if not isinstance(ms, dict) or not re.match(r"^1\.0\.\d+$", str(ms.get("version", ""))):
            faults.append("meta-spec: version must be 1.0.x")
        else:
            check_keys(ms, {"version", "url"}, "meta-spec", faults)
            if "url" in ms and ms["url"] not in ("https://pgxn.org/meta/spec.txt", "http://pgxn.org/meta/spec.txt"):
                faults.append("meta-spec: url must be the spec's")
    prov = meta.get("provides")
    if "provides" in meta:
        if not isinstance(prov, dict) or not prov:
            faults.append("provides: must be a non-empty object")
        else:
            for ext, e in prov.items():
                where = f"provides.{ext}"
                if not TERM_RE.match(ext):
                    faults.append(f"{where}: the extension name is not a term")
                if not isinstance(e, dict):
                    faults.append(f"{where}: must be an object")
                    continue
                check_keys(e, {"file", "version", "abstract", "docfile", "docpath"}, where, faults)
                for k in ("file", "version"):
                    if k not in e:
                        faults.append(f"{where}: missing required key {k!r}")
                if "version" in e and not (isinstance(e["version"], str) and VERSION_RE.match(e["version"])):
                    faults.append(f"{where}.version: {e['version']!r} is not a SemVer")
                for k in ("file", "docfile"):
                    if k in e:
                        if not relative_path(e[k]):
                            faults.append(f"{where}.{k}: {e[k]!r} is not a relative unix path")
                        elif dist_dir and not os.path.isfile(os.path.join(dist_dir, e[k])):
                            faults.append(f"{where}.{k}: {e[k]} is not in the distribution")
                if "abstract" in e and not nonempty_string(e["abstract"]):
                    faults.append(f"{where}.abstract: must be a non-empty string")
    if "prereqs" in meta:
        check_prereqs(meta["prereqs"], faults)
    if "tags" in meta:
        t = meta["tags"]
        if not (isinstance(t, list) and t and all(nonempty_string(x) and len(x) <= 255 for x in t)):
            faults.append("tags: must be a non-empty list of strings of 1 to 255 characters")
    if "release_status" in meta and meta["release_status"] not in ("stable", "testing", "unstable"):
        faults.append("release_status: must be stable, testing or unstable")
    if "resources" in meta:
        r = meta["resources"]
        if not isinstance(r, dict) or not r:
            faults.append("resources: must be a non-empty object")
        else:
            check_keys(r, {"homepage", "bugtracker", "repository"}, "resources", faults)
    return faults


def self_test(path):
    """Each broken copy of a valid document must be refused, or the checker checks nothing."""
    with open(path) as f:
        good = json.load(f)
    assert validate(good) == [], validate(good)
    breakages = {
        "no name": lambda m: m.pop("name"),
        "two-part version": lambda m: m.__setitem__("version", "0.2"),
        "unknown licence": lambda m: m.__setitem__("license", "postgres"),
        "no provides": lambda m: m.pop("provides"),
        "extension without file": lambda m: next(iter(m["provides"].values())).pop("file"),
        "absolute file": lambda m: next(iter(m["provides"].values())).__setitem__("file", "/etc/passwd"),
        "meta-spec 2": lambda m: m.__setitem__("meta-spec", {"version": "2.0.0"}),
        "bad range": lambda m: m.__setitem__("prereqs", {"runtime": {"requires": {"PostgreSQL": ">= 15"}}}),
        "unknown phase": lambda m: m.__setitem__("prereqs", {"install": {"requires": {"PostgreSQL": 0}}}),
        "unknown key": lambda m: m.__setitem__("homepage", "https://example.org"),
        "name with space": lambda m: m.__setitem__("name", "geo idx"),
        "bad status": lambda m: m.__setitem__("release_status", "final"),
    }
    for what, breakit in breakages.items():
        m = copy.deepcopy(good)
        breakit(m)
        if not validate(m):
            print(f"self-test: a document with {what} was accepted", file=sys.stderr)
            return 1
    print(f"self-test: {len(breakages)} broken documents refused")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{argv[1]}: {e}", file=sys.stderr)
        return 1
    faults = validate(meta, argv[2] if len(argv) == 3 else None)
    for f in faults:
        print(f"{argv[1]}: {f}", file=sys.stderr)
    if not faults:
        print(f"{argv[1]}: valid PGXN Meta Spec {meta['meta-spec']['version']} document")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
