"""Cloud SDK calls in a Python program are read as the CLI command that does the same."""

from __future__ import annotations

import pytest

from specialists.inline import python_ops


def commands(code: str) -> list[tuple[str, ...]]:
    ops = python_ops(code, "/home/u", "/home/u/proj")
    assert ops is not None
    return [op.words for op in ops if op.kind == "argv"]


@pytest.mark.parametrize(
    ("code", "command"),
    [
        (
            "import boto3\nboto3.client('s3').delete_bucket(Bucket='assets')",
            ("aws", "s3api", "delete-bucket", "--bucket", "assets"),
        ),
        (
            "import boto3\nrds = boto3.client('rds')\n"
            "rds.delete_db_instance(DBInstanceIdentifier='db1', SkipFinalSnapshot=True)",
            (
                "aws", "rds", "delete-db-instance", "--db-instance-identifier", "db1",
                "--skip-final-snapshot", "<expr>",
            ),
        ),
        (
            "import boto3 as b\ns = b.Session(profile_name='x')\nc = s.client('ec2')\n"
            "c.terminate_instances(InstanceIds=['i-1'])",
            ("aws", "ec2", "terminate-instances", "--instance-ids", "<expr>"),
        ),
        (
            "import boto3\ns3 = boto3.resource('s3')\nbucket = s3.Bucket('logs')\n"
            "bucket.objects.filter(Prefix='2024/').delete()",
            ("aws", "s3", "rm", "s3://logs/2024/", "--recursive"),
        ),
        (
            "import boto3\nboto3.resource('s3').Bucket('logs').delete()",
            ("aws", "s3", "rb", "s3://logs"),
        ),
        (
            "import boto3\nboto3.resource('dynamodb').Table('orders').delete()",
            ("aws", "dynamodb", "delete-table", "orders"),
        ),
        (
            "import boto3\nboto3.resource('ec2').Instance('i-9').terminate()",
            ("aws", "ec2", "terminate-instances", "i-9"),
        ),
        (
            "import boto3\nboto3.resource('ec2').instances.all().terminate()",
            ("aws", "ec2", "terminate-instances", "--all"),
        ),
        (
            "from boto3 import client as make\n"
            "make('s3').upload_file('/home/u/.ssh/id_rsa', 'b', 'k')",
            ("aws", "s3", "cp", "/home/u/.ssh/id_rsa", "s3://b/k"),
        ),
        (
            "from google.cloud import storage\nstorage.Client().bucket('d').delete(force=True)",
            ("gsutil", "rm", "-r", "gs://d"),
        ),
        (
            "from google.cloud import storage\nb = storage.Client().bucket('d')\n"
            "b.blob('x.csv').upload_from_filename('/home/u/x.csv')",
            ("gsutil", "cp", "/home/u/x.csv", "gs://d/x.csv"),
        ),
    ],
)  # fmt: skip
def test_a_call_that_changes_something_is_its_cli_command(code: str, command: tuple[str, ...]):
    assert command in commands(code)


@pytest.mark.parametrize(
    "code",
    [
        "import boto3\nprint(boto3.client('s3').list_buckets())",
        "import boto3\nboto3.client('secretsmanager').get_secret_value(SecretId='x')",
        "import boto3\nfor o in boto3.resource('s3').Bucket('b').objects.all():\n    print(o.key)",
        "import boto3\nboto3.client('s3').download_file('b', 'k', 'out.bin')",
        "class C:\n    def delete(self): pass\nC().delete()",
        "import requests\nrequests.Session().delete('http://localhost:8000/x')",
    ],
)
def test_reads_and_other_objects_are_not_sdk_commands(code: str):
    assert not [c for c in commands(code) if c[0] in ("aws", "gsutil")]
