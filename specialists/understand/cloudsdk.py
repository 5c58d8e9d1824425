"""Cloud SDK calls in a Python program, as the CLI command that does the same.

An agent that deletes a bucket with ``boto3`` does what ``aws s3 rb`` does; the act is the
same whichever client spells it. boto3's client methods are the AWS CLI's operations with
``_`` for ``-`` (``ec2.terminate_instances`` is ``aws ec2 terminate-instances``), so a call on
a client is read as that command, its keyword arguments as the command's options. The
resource interface is read the same way (``s3.Bucket("b").objects.all().delete()`` is ``aws
s3 rm s3://b --recursive``; ``dynamodb.Table("t").delete()`` is ``aws dynamodb
delete-table``), as is Google Cloud Storage's client (``storage.Client().bucket("b").delete()``
is ``gsutil rb gs://b``).

Only calls that change something are read: a method whose name starts with a read verb
(``get_``, ``list_``, ``describe_``...) is the program's own business. Values are what the
program states (the caller's ``value``); what it does not state is ``<expr>``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Final, NamedTuple

__all__ = ["CloudCalls"]

Value = Callable[[ast.AST], "str | None"]
Dotted = Callable[[ast.AST], str]

UNKNOWN: Final = "<expr>"
MAX_BOUND: Final = 256  # names bound to SDK handles in one program

_READS: Final = (
    "get_", "list_", "describe_", "head_", "generate_", "can_", "batch_get", "scan", "query",
    "select", "lookup_", "search_", "wait", "download_", "close", "meta", "exceptions",
    "filter_", "test_", "validate_", "estimate_", "preview_", "simulate_", "verify", "admin_get",
)  # fmt: skip
_S3_UPLOADS: Final = frozenset({"upload_file", "upload_fileobj"})
# Resource actions that the CLI names with the plural (``ec2 terminate-instances``).
_PLURAL_ACTIONS: Final = frozenset({"terminate", "stop", "start", "reboot"})


class Handle(NamedTuple):
    """What a name stands for: an SDK ``client``/``resource`` of a ``service``, one
    ``object`` of a resource type with its id, or a ``collection`` of them."""

    sdk: str  # "aws" or "gcs"
    kind: str  # client, resource, object, collection
    service: str
    resource: str = ""
    ident: str = UNKNOWN
    parent: str = UNKNOWN  # a bucket's name, for its objects


def _kebab(name: str) -> str:
    out: list[str] = []
    for i, ch in enumerate(name):
        after = name[i + 1] if i + 1 < len(name) else ""
        if (
            ch.isupper()
            and i
            and (
                name[i - 1].islower()
                or name[i - 1].isdigit()
                or (name[i - 1].isupper() and after.islower())
            )
        ):  # DBInstanceIdentifier: db-instance-identifier
            out.append("-")
        out.append("-" if ch == "_" else ch.lower())
    return "".join(out)


class CloudCalls:
    """Names bound to SDK handles in one program, and the commands its calls amount to."""

    def __init__(self, value: Value, dotted: Dotted) -> None:
        self._value = value
        self._dotted = dotted
        self._bound: dict[str, Handle] = {}

    def bind(self, name: str, node: ast.AST) -> None:
        """Remember (or forget) what ``name = node`` makes ``name`` stand for."""
        handle = self.handle(node)
        if handle is None:
            self._bound.pop(name, None)
        elif len(self._bound) < MAX_BOUND:
            self._bound[name] = handle

    def handle(self, node: ast.AST) -> Handle | None:
        """The SDK handle an expression stands for, else None."""
        if isinstance(node, ast.Await):
            node = node.value
        if isinstance(node, ast.Name):
            return self._bound.get(node.id)
        if isinstance(node, ast.Attribute):
            owner = self.handle(node.value)
            if owner is not None and owner.kind in ("resource", "object"):
                # s3.buckets, bucket.objects, ec2.instances: a collection
                if node.attr in ("meta", "client"):
                    return owner._replace(kind="client") if node.attr == "client" else None
                return Handle(owner.sdk, "collection", owner.service, node.attr, parent=owner.ident)
            return None
        if not isinstance(node, ast.Call):
            return None
        func = node.func
        name = self._dotted(func)
        last = name.rsplit(".", 1)[-1]
        root = name.split(".", 1)[0]
        first = self._arg(node, 0, "service_name")
        receiver = func.value if isinstance(func, ast.Attribute) else None
        owner = self.handle(receiver) if receiver is not None else None
        if last in ("client", "resource") and (
            root in ("boto3", "aioboto3") or (owner is not None and owner.kind == "session")
        ):
            return Handle("aws", last, first or UNKNOWN) if first else None
        if last == "Session" and root in ("boto3", "aioboto3"):
            return Handle("aws", "session", "")
        if name in ("google.cloud.storage.Client", "storage.Client"):
            return Handle("gcs", "client", "storage")
        if owner is None:
            return None
        if owner.kind == "collection" and last in ("all", "filter", "limit", "page_size"):
            prefix = self._keyword(node, "Prefix") if last == "filter" else None
            ident = owner.ident if prefix is None else prefix
            return owner._replace(ident=ident)
        if owner.sdk == "gcs" and last in ("bucket", "get_bucket", "lookup_bucket"):
            bucket = self._arg(node, 0, "bucket_name") or UNKNOWN
            return Handle("gcs", "object", "storage", "bucket", bucket)
        if owner.sdk == "gcs" and owner.resource == "bucket" and last in ("blob", "get_blob"):
            blob = self._arg(node, 0, "blob_name") or UNKNOWN
            return Handle("gcs", "object", "storage", "blob", blob, owner.ident)
        if owner.kind in ("resource", "object") and last[:1].isupper():
            # s3.Bucket("b"), dynamodb.Table("t"), ec2.Instance(i), bucket.Object(k)
            ident = self._arg(node, 0, "name") or UNKNOWN
            parent = owner.ident if owner.kind == "object" else UNKNOWN
            return Handle(owner.sdk, "object", owner.service, last, ident, parent)
        return None

    def command(self, node: ast.Call) -> tuple[str, ...] | None:
        """The command a call on an SDK handle amounts to, when it changes something."""
        func = node.func
        if not isinstance(func, ast.Attribute):
            return None
        owner = self.handle(func.value)
        if owner is None:
            return None
        method = func.attr
        if method.startswith(_READS):
            return None
        if owner.sdk == "gcs":
            return self._gcs(owner, method, node)
        if owner.kind == "client" and owner.service:
            return self._client_call(owner.service, method, node)
        if owner.kind == "object":
            return self._object_call(owner, method)
        if owner.kind == "collection":
            return self._collection_call(owner, method)
        return None

    # -- the forms ------------------------------------------------------------------------------

    def _client_call(self, service: str, method: str, node: ast.Call) -> tuple[str, ...]:
        if service == "s3" and method in _S3_UPLOADS:
            source = self._arg(node, 0, "Filename") or UNKNOWN
            bucket = self._arg(node, 1, "Bucket") or UNKNOWN
            key = self._arg(node, 2, "Key") or UNKNOWN
            return ("aws", "s3", "cp", source, f"s3://{bucket}/{key}")
        words = ["aws", "s3api" if service == "s3" else service, _kebab(method)]
        for keyword in node.keywords[:32]:
            if keyword.arg is None:
                continue
            words += [f"--{_kebab(keyword.arg)}", self._value(keyword.value) or UNKNOWN]
        return tuple(words)

    def _object_call(self, owner: Handle, method: str) -> tuple[str, ...] | None:
        if owner.service == "s3" and owner.resource == "Bucket" and method == "delete":
            return ("aws", "s3", "rb", f"s3://{owner.ident}")
        if owner.service == "s3" and owner.resource in ("Object", "ObjectSummary"):
            if method == "delete":
                return ("aws", "s3", "rm", f"s3://{owner.parent}/{owner.ident}")
            return None
        resource = _kebab(owner.resource)
        if owner.service == "ec2" and method in _PLURAL_ACTIONS:
            resource += "s"
        return ("aws", owner.service, f"{_kebab(method)}-{resource}", owner.ident)

    def _collection_call(self, owner: Handle, method: str) -> tuple[str, ...] | None:
        if owner.service == "s3" and owner.resource in ("objects", "object_versions"):
            if method != "delete":
                return None
            prefix = "" if owner.ident == UNKNOWN else owner.ident
            bucket = owner.parent
            return ("aws", "s3", "rm", f"s3://{bucket}/{prefix}", "--recursive")
        # ec2.instances.all().terminate(): every instance of the selection
        return ("aws", owner.service, f"{_kebab(method)}-{_kebab(owner.resource)}", "--all")

    def _gcs(self, owner: Handle, method: str, node: ast.Call) -> tuple[str, ...] | None:
        if owner.resource == "bucket" and method == "delete":
            force = self._keyword(node, "force")
            return ("gsutil", "rm", "-r", f"gs://{owner.ident}") if force == "True" else (
                "gsutil", "rb", f"gs://{owner.ident}",
            )  # fmt: skip
        if owner.resource == "bucket" and method == "delete_blobs":
            return ("gsutil", "rm", f"gs://{owner.ident}/{UNKNOWN}")
        if owner.resource == "blob" and method == "delete":
            return ("gsutil", "rm", f"gs://{owner.parent}/{owner.ident}")
        if owner.resource == "blob" and method.startswith("upload_from_filename"):
            source = self._arg(node, 0, "filename") or UNKNOWN
            return ("gsutil", "cp", source, f"gs://{owner.parent}/{owner.ident}")
        return None

    # -- values ---------------------------------------------------------------------------------

    def _arg(self, node: ast.Call, index: int, keyword: str) -> str | None:
        if len(node.args) > index:
            return self._value(node.args[index])
        return self._keyword(node, keyword)

    def _keyword(self, node: ast.Call, name: str) -> str | None:
        for keyword in node.keywords:
            if keyword.arg == name:
                value = keyword.value
                if isinstance(value, ast.Constant) and isinstance(value.value, bool):
                    return str(value.value)
                return self._value(value)
        return None
