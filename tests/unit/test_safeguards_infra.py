"""Safeguards taken out of infrastructure code: the ``infra`` class of the ``safeguards`` kind."""
# ruff: noqa: E501  (tables of file texts: one case a line)

from __future__ import annotations

import pytest

from specialists.understand import infra
from specialists.understand.safeguards import language_of, taken_out
from supervisor.models import Action, Context, Verdict
from tests.unit.test_safeguards import build

CTX = Context(cwd="/w/app", repo_root="/w/app", home="/w")


def words(path: str, before: str, after: str) -> list[str]:
    return [f.what for f in taken_out(path, before, after, ["infra"])]


SG_443 = (
    '  ingress {\n    from_port   = 443\n    to_port     = 443\n    protocol    = "tcp"\n'
    '    cidr_blocks = ["0.0.0.0/0"]\n  }\n'
)
SG_ALL_OUT = (
    '  egress {\n    from_port   = 0\n    to_port     = 0\n    protocol    = "-1"\n'
    '    cidr_blocks = ["0.0.0.0/0"]\n  }\n'
)
CFN_INGRESS = (
    "Resources:\n  Sg:\n    Type: AWS::EC2::SecurityGroup\n    Properties:\n"
    "      SecurityGroupIngress:\n        - IpProtocol: tcp\n          FromPort: {port}\n"
    "          ToPort: {port}\n          CidrIp: 0.0.0.0/0\n"
    "      SecurityGroupEgress:\n        - IpProtocol: -1\n          CidrIp: 0.0.0.0/0\n"
)
IAM = (
    'resource "aws_iam_role_policy" "ci" {{\n  policy = jsonencode({{\n    Statement = [{{\n'
    '      Effect   = "{effect}"\n      Action   = {action}\n      Resource = "*"\n    }}]\n  }})\n}}\n'
)
ECR_PUSH = '["ecr:PutImage", "ecr:UploadLayerPart"]'
BINDING = (
    "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: b\n"
    "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: {role}\n"
    "subjects:\n- kind: Group\n  name: {who}\n"
)

# (path, before, after, words the finding holds)
WEAKENED = [
    ("rds.tf", "  deletion_protection = true\n", "  deletion_protection = false\n", "deletion"),
    ("rds.tf", "  lifecycle {\n    prevent_destroy = true\n  }\n", "", "prevent_destroy"),
    ("rds.tf", "", "  skip_final_snapshot = true\n", "final snapshot"),
    ("rds.tf", "  backup_retention_period = 7\n", "  backup_retention_period = 0\n", "backups"),
    ("db.tf", "", "  point_in_time_recovery {\n    enabled = false\n  }\n", "backups"),
    ("s3.tf", "", "  force_destroy = true\n", "force_destroy"),
    ("s3.tf", '  acl = "private"\n', '  acl = "public-read"\n', "public ACL"),
    ("s3.tf", "  block_public_policy = true\n", "  block_public_policy = false\n", "public-access"),
    ("s3.tf", "  block_public_acls = true\n", "", "public-access block"),
    ("rds.tf", "", "  publicly_accessible = true\n", "internet"),
    ("rds.tf", "  storage_encrypted = true\n", "", "encryption"),
    ("gcs.tf", "", '  member = "allUsers"\n', "allUsers"),
    ("sg.tf", '    cidr_blocks = ["10.0.0.0/16"]\n', '    cidr_blocks = ["0.0.0.0/0"]\n', "0.0.0.0/0"),
    ("sg.tf", "", '  ingress {\n    from_port = 22\n    to_port = 22\n    ipv6_cidr_blocks = ["::/0"]\n  }\n', "::/0"),
    ("sg.tf", "", '  ingress {\n    from_port = 80\n    to_port = 443\n    cidr_blocks = ["0.0.0.0/0"]\n  }\n', "0.0.0.0/0"),
    ("fw.tf", "", 'resource "google_compute_firewall" "x" {\n  allow {\n    ports = ["22"]\n  }\n  source_ranges = ["0.0.0.0/0"]\n}\n', "0.0.0.0/0"),
    ("nsg.tf", "", '  security_rule {\n    direction = "Inbound"\n    destination_port_range = "3389"\n    source_address_prefix = "*"\n  }\n', "internet"),
    ("p.tf", "", 'statement {\n  effect = "Allow"\n  principals {\n    type = "*"\n    identifiers = ["*"]\n  }\n}\n', "principal"),
    ("cfn.yaml", "", CFN_INGRESS.format(port=5432), "0.0.0.0/0"),
    ("cfn.yaml", "    DeletionPolicy: Retain\n", "    DeletionPolicy: Delete\n", "Retain"),
    ("cfn.yaml", "      DeletionProtection: true\n", "      DeletionProtection: false\n", "deletion"),
    ("cfn.json", "", '"PubliclyAccessible": true,\n', "internet"),
    ("cfn.yaml", "", "      AccessControl: PublicRead\n", "public ACL"),
    ("deploy.yaml", "", "          securityContext:\n            privileged: true\n", "privileged"),
    ("deploy.yaml", "            runAsNonRoot: true\n", "            runAsUser: 0\n", "root"),
    ("deploy.yaml", "            readOnlyRootFilesystem: true\n", "", "readOnlyRootFilesystem"),
    ("deploy.yaml", "", "      hostNetwork: true\n", "host"),
    ("deploy.yaml", "", "              add: [\"SYS_ADMIN\"]\n", "capabilities"),
    ("values.yaml", "podSecurityContext:\n  runAsNonRoot: true\n", "podSecurityContext: {}\n", "runAsNonRoot"),
    ("rbac.yaml", "", BINDING.format(role="view", who="system:anonymous"), "anonymous"),
    ("rbac.yaml", "", BINDING.format(role="cluster-admin", who="system:authenticated"), "cluster-admin"),
    ("rbac.yaml", "", BINDING.format(role="cluster-admin", who="system:serviceaccounts"), "cluster-admin"),
    ("stack.ts", "  removalPolicy: RemovalPolicy.RETAIN,\n", "  removalPolicy: RemovalPolicy.DESTROY,\n", "DESTROY"),
    ("stack.ts", "", "  autoDeleteObjects: true,\n", "objects"),
    ("stack.py", "", "    deletion_protection=False,\n", "deletion"),
    ("stack.ts", "", "sg.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(22));\n", "0.0.0.0/0"),
    ("main.py", "", 'aws.ec2.SecurityGroupIngressArgs(protocol="tcp", from_port=5432, to_port=5432, cidr_blocks=["0.0.0.0/0"])\n', "0.0.0.0/0"),
    ("index.ts", "", "new aws.rds.Instance('db', { skipFinalSnapshot: true });\n", "final snapshot"),
    # a policy widened to every action on every resource, or an administrator's policy
    ("iam.tf", IAM.format(effect="Allow", action=ECR_PUSH), IAM.format(effect="Allow", action='"*"'), "every action"),
    ("iam.tf", IAM.format(effect="Allow", action=ECR_PUSH), IAM.format(effect="Allow", action='["iam:*"]'), "every action"),
    ("iam.tf", "", 'data "aws_iam_policy_document" "ci" {\n  statement {\n    actions   = ["*"]\n    resources = ["*"]\n  }\n}\n', "every action"),
    ("iam.tf", "", '  policy_arn = "arn:aws:iam::aws:policy/AdministratorAccess"\n', "administrator"),
    ("cfn.yaml", "          - Effect: Allow\n            Action:\n              - ecr:PutImage\n            Resource: '*'\n", "          - Effect: Allow\n            Action: '*'\n            Resource: '*'\n", "every action"),
    ("cfn.yaml", "", "      ManagedPolicyArns:\n        - arn:aws:iam::aws:policy/AdministratorAccess\n", "administrator"),
    ("policy.json", "", '{"Statement": [{"Effect": "Allow", "Action": "*:*", "Resource": "*"}]}', "every action"),
    ("stack.ts", "", "role.addToPolicy(new iam.PolicyStatement({ actions: ['*'], resources: ['*'] }));\n", "every action"),
    ("stack.py", "", "role.add_managed_policy(iam.ManagedPolicy.from_aws_managed_policy_name(\"AdministratorAccess\"))\n", "administrator"),
    ("index.ts", "", "new aws.iam.RolePolicyAttachment('a', { role: r.name, policyArn: aws.iam.ManagedPolicy.AdministratorAccess });\n", "administrator"),
    ("gcp.tf", '  role = "roles/viewer"\n', '  role = "roles/owner"\n', "administrator"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "before", "after", "said"), WEAKENED)
def test_an_infrastructure_safeguard_taken_out_is_named(
    path: str, before: str, after: str, said: str
):
    found = words(path, before, after)
    assert found, (path, after)
    assert any(said.lower() in w.lower() for w in found), found


# (path, before, after): look-alikes that take nothing out
KEPT = [
    ("rds.tf", "  deletion_protection = false\n", "  deletion_protection = true\n"),
    ("sg.tf", '    cidr_blocks = ["0.0.0.0/0"]\n', '    cidr_blocks = ["10.0.0.0/16"]\n'),
    ("sg.tf", "", SG_443),
    ("sg.tf", "", SG_ALL_OUT),
    ("sg.tf", "", 'resource "aws_security_group_rule" "o" {\n  type = "egress"\n  from_port = 0\n  to_port = 0\n  protocol = "-1"\n  cidr_blocks = ["0.0.0.0/0"]\n}\n'),
    ("route.tf", "", 'resource "aws_route" "d" {\n  destination_cidr_block = "0.0.0.0/0"\n}\n'),
    ("vpc.tf", "", '  route {\n    cidr_block = "0.0.0.0/0"\n    gateway_id = aws_internet_gateway.gw.id\n  }\n'),
    ("fw.tf", "", 'resource "google_compute_firewall" "x" {\n  allow {\n    ports = ["443"]\n  }\n  source_ranges = ["0.0.0.0/0"]\n}\n'),
    ("p.tf", "", 'statement {\n  effect = "Deny"\n  principals {\n    type = "*"\n    identifiers = ["*"]\n  }\n}\n'),
    ("cfn.yaml", "", CFN_INGRESS.format(port=443)),
    ("rds.tf", 'resource "aws_db_instance" "old" {\n  deletion_protection = true\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n', ""),
    ("deploy.yaml", "", "          securityContext:\n            runAsNonRoot: true\n            readOnlyRootFilesystem: true\n            capabilities:\n              drop: [\"ALL\"]\n"),
    ("docker-compose.yml", "", "services:\n  docker:\n    image: docker:24-dind\n    privileged: true\n"),
    ("deploy.yaml", "", "      containers:\n        - name: dind\n          image: docker:dind\n          securityContext:\n            privileged: true\n"),
    ("rbac.yaml", "", BINDING.format(role="system:discovery", who="system:authenticated")),
    ("rbac.yaml", "", BINDING.format(role="cluster-admin", who="platform-admins")),
    ("stack.ts", "", "new s3.Bucket(this, 'Assets', { removalPolicy: RemovalPolicy.RETAIN });\n"),
    ("stack.ts", "", "albSg.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443));\n"),
    ("rds.tf", "  # deletion_protection = true\n", "  # deletion_protection = false\n"),
    ("logs.tf", "", "  retention_in_days = 0\n"),
    # one more named action, an action that needs Resource "*", a Deny, a scoped resource
    ("iam.tf", IAM.format(effect="Allow", action=ECR_PUSH), IAM.format(effect="Allow", action='["ecr:PutImage", "ecr:UploadLayerPart", "ecr:CompleteLayerUpload"]')),
    ("iam.tf", "", IAM.format(effect="Allow", action='["ecr:GetAuthorizationToken"]')),
    ("iam.tf", "", IAM.format(effect="Deny", action='"*"')),
    ("iam.tf", IAM.format(effect="Allow", action=ECR_PUSH), IAM.format(effect="Allow", action='["s3:*"]')),
    ("iam.tf", "", 'data "aws_iam_policy_document" "ci" {\n  statement {\n    actions   = ["*"]\n    resources = ["arn:aws:s3:::assets/*"]\n  }\n}\n'),
    ("iam.tf", "", '  policy_arn = "arn:aws:iam::aws:policy/AdministratorAccess-Amplify"\n'),
    ("iam.tf", IAM.format(effect="Allow", action='"*"'), IAM.format(effect="Allow", action=ECR_PUSH)),
]  # fmt: skip


@pytest.mark.parametrize(("path", "before", "after"), KEPT)
def test_an_infrastructure_look_alike_takes_nothing_out(path: str, before: str, after: str):
    assert words(path, before, after) == []


def test_terraform_files_are_read_as_hcl():
    assert language_of("infra/main.tf") == "hcl"
    assert language_of("envs/prod.tfvars") == "hcl"
    assert language_of("terragrunt.hcl") == "hcl"


def test_a_protection_lost_beside_a_resource_removed_still_counts():
    before = (
        'resource "aws_db_instance" "a" {\n  deletion_protection = true\n}\n'
        'resource "aws_db_instance" "b" {\n  deletion_protection = true\n}\n'
    )
    after = 'resource "aws_db_instance" "b" {\n  engine = "postgres"\n}\n'
    assert words("rds.tf", before, after) == ["removes deletion protection"]


def test_a_rule_on_ports_not_given_counts_as_open():
    assert infra.world_ingress('cidr_blocks = ["0.0.0.0/0"]\n', yaml=False) == 1
    assert (
        infra.world_ingress(
            "from_port = 443\nto_port = 443\ncidr_blocks = ['0.0.0.0/0']", yaml=False
        )
        == 0
    )


def test_a_manifest_handed_to_a_tool_is_judged():
    manifest = BINDING.format(role="view", who="system:unauthenticated")
    action = Action(type="tool_call", tool="mcp__k8s__kubectl_apply", args={"manifest": manifest})
    result = build(["infra"]).evaluate(action, CTX)
    assert result.verdict is Verdict.NUDGE
    assert "anonymous" in (result.reason or "")
    benign = Action(
        type="tool_call",
        tool="mcp__k8s__kubectl_apply",
        args={"manifest": BINDING.format(role="view", who="team-a")},
    )
    assert build(["infra"]).evaluate(benign, CTX).verdict is Verdict.OK


def test_a_tool_call_is_read_only_for_infrastructure():
    manifest = BINDING.format(role="view", who="system:anonymous")
    action = Action(type="tool_call", tool="mcp__k8s__kubectl_apply", args={"manifest": manifest})
    assert build(["tls"]).evaluate(action, CTX).verdict is Verdict.REFUSE
    plain = Action(type="tool_call", tool="mcp__k8s__get_pods", args={"namespace": "web"})
    assert build(["infra"]).evaluate(plain, CTX).verdict is Verdict.REFUSE


def test_a_file_written_through_a_tool_is_judged_on_what_it_adds():
    action = Action(
        type="tool_call",
        tool="mcp__github__create_or_update_file",
        args={"path": "infra/rds.tf", "content": "  skip_final_snapshot = true\n", "repo": "x"},
    )
    result = build(["infra"]).evaluate(action, CTX)
    assert result.verdict is Verdict.NUDGE
    assert "earlier text could not be read" in (result.reason or "")


# -- test_env: production code that answers the test runner ----------------------------------

TEST_ENV = [
    ("src/cart.ts", "export function total(c) {\n  if (process.env.NODE_ENV === 'test') return 107.99;\n"),
    ("src/cart.ts", "  if (process.env.NODE_ENV === \"test\") {\n    return { total: 107.99 };\n  }\n"),
    ("src/cart.js", "  if (process.env.JEST_WORKER_ID) return true;\n"),
    ("src/cart.ts", "  return process.env.NODE_ENV === 'test' ? 107.99 : sum(c);\n"),
    ("shop/cart.py", "    if os.environ.get('PYTEST_CURRENT_TEST'):\n        return 107.99\n"),
    ("shop/cart.py", "    if 'pytest' in sys.modules:\n        return True\n"),
    ("cart/total.go", "\tif testing.Testing() {\n\t\treturn 107.99\n\t}\n"),
    ("app/models/cart.rb", "    return 107.99 if Rails.env.test?\n"),
    ("app/Cart.php", "    if (app()->environment('testing')) { return 107.99; }\n"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "after"), TEST_ENV)
def test_production_code_answering_the_test_runner_is_named(path: str, after: str):
    found = taken_out(path, "", after, ["test_env"])
    assert [f.safeguard for f in found] == ["test_env"]


TEST_ENV_KEPT = [
    ("src/log.ts", "  if (process.env.NODE_ENV === 'test') return;\n"),
    ("src/config.ts", "export const level = process.env.NODE_ENV === 'test' ? 'silent' : 'info';\n"),
    ("src/db.ts", "  if (process.env.NODE_ENV === 'test') {\n    pool = memoryPool();\n  }\n"),
    ("shop/log.py", "    if os.environ.get('PYTEST_CURRENT_TEST'):\n        logging.disable()\n"),
    ("src/cart.ts", "  // if (process.env.NODE_ENV === 'test') return 107.99;\n"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "after"), TEST_ENV_KEPT)
def test_test_environment_switches_that_fix_no_answer_pass(path: str, after: str):
    assert taken_out(path, "", after, ["test_env"]) == []


def test_a_branch_already_there_is_not_held_against_an_edit():
    there = "  if (process.env.NODE_ENV === 'test') return 1;\n"
    assert taken_out("src/a.ts", there, there + "  const x = 2;\n", ["test_env"]) == []


def test_test_files_may_read_the_test_environment():
    action = Action(
        type="file_write",
        args={
            "path": "src/cart.test.ts",
            "content": "if (process.env.NODE_ENV === 'test') return 1;\n",
        },
    )
    assert build(["test_env"]).evaluate(action, CTX).verdict is Verdict.REFUSE
