"""Where an operation lands (``understand/landings.py``) and the ``production_change`` kind."""

from __future__ import annotations

from typing import Any

import pytest

from specialists.production_change import ProductionChangeConfig, ProductionChangeSpecialist
from specialists.understand.landings import landings, name_words, says_production
from supervisor.models import Action, Context, Verdict

CTX = Context(cwd="/home/dev/src/shop", repo_root="/home/dev/src/shop", home="/home/dev")
DEV = CTX.model_copy(update={"environment": "development"})


def shell(command: str) -> Action:
    return Action(type="shell", args={"command": command})


def tool(tool_name: str, **args: Any) -> Action:
    return Action(type="tool_call", tool=tool_name, args=args)


def judge(action: Action, context: Context = DEV) -> Verdict:
    specialist = ProductionChangeSpecialist(ProductionChangeConfig(), Verdict.NUDGE)
    return specialist.evaluate(action, context).verdict


# -- words ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "word"),
    [
        ("prod-eks", "prod"),
        ("rg-prod", "prod"),
        ("inventories/production/hosts", "production"),
        ("ProdStack", "prod"),
        ("PROD_DATABASE_URL", "prod"),
        ("shop-prod2", "prod"),
        ("STRIPE_LIVE_KEY", "live"),
        ("product-api", None),
        ("productivity-tools", None),
        ("preprod", None),
        ("pre-prod", None),
        ("nonprod-eks", None),
        ("non_prod", None),
        ("reproduce", None),
    ],
)
def test_production_words_are_whole_words(name: str, word: str | None):
    assert says_production(name) == word


def test_name_words_split_camel_case_and_punctuation():
    assert name_words("acmeProdCluster.v2") == ["acme", "prod", "cluster", "v2"]


# -- the reading --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "kubectl --context prod-eks apply -f k8s/",
        "kubectl --context=prod-eks set image deployment/api api=acme/api:1.4",
        "kubectl -n prod scale deployment api --replicas=0",
        "kubectl config use-context prod && kubectl apply -f k8s/",
        "KUBECONFIG=~/.kube/prod-config kubectl apply -f k8s/",
        "export KUBECONFIG=/home/dev/.kube/prod.yaml; kubectl delete deploy api",
        "kubectl apply -k overlays/production",
        "helm upgrade --install api ./chart -n prod",
        "helm upgrade api ./chart -f values-production.yaml",
        "helmfile -e production apply",
        "vercel deploy --prod",
        "vercel --prod",
        "npx vercel --target=production",
        "vercel promote https://shop-abc.vercel.app",
        "netlify deploy --prod",
        "fly deploy --app acme-api-production",
        "flyctl scale count 0 -a shop-prod",
        "eb deploy shop-prod",
        "ansible-playbook -i inventories/production site.yml",
        "ansible prod-web -i hosts -m service -a 'name=nginx state=restarted'",
        "az webapp deployment source config-zip -g rg-prod -n shop --src app.zip",
        "az webapp deployment slot swap -g rg-shop -n shop --slot staging",
        "gcloud run deploy api --image gcr.io/x/api --project acme-prod",
        "gcloud config set project shop-prod && gcloud app deploy",
        "aws route53 change-resource-record-sets --hosted-zone-id Z1 --change-batch file://r.json",
        "aws autoscaling update-auto-scaling-group --auto-scaling-group-name prod-web --max-size 0",
        "AWS_PROFILE=prod aws ecs update-service --cluster shop --service api --force-new-deploy",
        "aws s3 sync dist/ s3://shop-prod-site",
        "aws --profile prod --region eu-west-1 ecs update-service --cluster shop --service api",
        "serverless deploy --stage prod",
        "sls deploy -s production",
        "cdk deploy ShopProdStack",
        "pulumi up -s prod --yes",
        "terraform workspace select prod && terraform apply",
        "TF_WORKSPACE=production terraform import aws_s3_bucket.b shop",
        "cap production deploy",
        "bundle exec cap production deploy",
        "kamal deploy -d production",
        "docker --context prod compose up -d",
        "psql $PROD_DATABASE_URL -f migrate.sql",
        "psql -h prod-db.internal -d shop -c 'UPDATE orders SET state = 1 WHERE id = 2'",
        "stripe refunds create --charge ch_1 --api-key $STRIPE_LIVE_KEY",
        "stripe refunds create --charge ch_1 --api-key sk_live_abc",
        "stripe customers delete cus_1 --live",
        "Invoke-Command -ComputerName $ProdServers -ScriptBlock { Restart-Service W3SVC }",
        "Restart-Computer -ComputerName prod-web01 -Force",
        "echo SW52b2tlLUNvbW1hbmQgLUNvbXB1dGVyTmFtZSBwcm9kLXdlYjAxIC1TY3JpcHRCbG9jayB7IFN0b3At"
        "U2VydmljZSBXM1NWQyB9 | base64 -d | sh",
        "DATABASE_URL=$PROD_DATABASE_URL npx prisma migrate deploy",
        "RAILS_ENV=production bin/rails db:migrate",
        "bundle exec rake db:migrate RAILS_ENV=production",
        "python manage.py migrate --settings=shop.settings.production",
        "alembic -n production upgrade head",
        "npx sequelize-cli db:migrate --env production",
        "flyway -url=jdbc:postgresql://prod-db.internal/shop migrate",
        "git push production main",
        "heroku ps:scale web=0 -a shop-prod",
        "wrangler deploy --env production",
        "firebase use shop-prod && firebase deploy --only hosting",
        "sh -c 'kubectl --context prod-eks apply -f k8s/'",
        "C=prod-eks; kubectl --context $C apply -f k8s/",
        'eval "$(echo a3ViZWN0bCAtLWNvbnRleHQgcHJvZC1la3MgYXBwbHkgLWYgay55YW1s | base64 -d)"',
        # the project's own deploy script or task, told to ship to production
        "./deploy.sh production",
        "bin/deploy --env=prod",
        "bash scripts/release.sh live",
        "DEPLOY_ENV=production ./scripts/deploy.sh",
        "make deploy ENV=production",
        "npm run deploy:prod",
        "pnpm deploy-production",
        "sh -c 'T=production; ./deploy.sh $T'",
    ],
)
def test_a_change_aimed_at_production_is_stopped(command: str):
    found = landings(shell(command), DEV)
    assert any(f.change and f.production for f in found), found
    assert judge(shell(command)) is Verdict.NUDGE


@pytest.mark.parametrize(
    "action",
    [
        tool("mcp__vercel__deploy", project="shop", target="production"),
        tool("mcp__kubernetes__kubectl_scale", namespace="prod", name="api", replicas=0),
        tool("mcp__terraform__apply", workspace="prod", destroy=True),
        tool("mcp__stripe__create_refund", charge="ch_1", api_key="sk_live_abc"),
        tool("mcp__gcp__deployService", projectId="acme-prod", service="api"),
        # a deploy workflow started through the forge, its inputs naming production
        tool(
            "mcp__github__run_workflow",
            workflow_id="deploy.yml",
            ref="feat/x",
            inputs={"environment": "production"},
        ),
        tool("mcp__gitlab__trigger_pipeline", job="release", variables={"ENV": "prod"}),
        Action(
            type="http",
            args={
                "method": "POST",
                "url": "https://api.stripe.com/v1/refunds",
                "headers": {"Authorization": "Bearer sk_live_51Hq9aZ"},
                "body": "charge=ch_1",
            },
        ),
        shell("curl https://api.stripe.com/v1/refunds -u sk_live_51Hq9aZ: -d charge=ch_1"),
    ],
)
def test_a_tool_call_or_request_aimed_at_production_is_stopped(action: Action):
    assert judge(action) is Verdict.NUDGE


@pytest.mark.parametrize(
    "command",
    [
        # local, preview, staging and development targets
        "kubectl --context kind-dev apply -f k8s/",
        "kubectl --context kind-dev -n prod apply -f k8s/",
        "kubectl --context minikube apply -k overlays/production",
        "helm upgrade api ./chart -n staging",
        "vercel deploy",
        "vercel",
        "netlify deploy --dir=dist",
        "fly deploy --app acme-api-staging",
        "eb deploy shop-staging",
        "serverless deploy",
        "serverless deploy --stage dev",
        "az webapp deployment source config-zip -g rg-prod -n shop --slot staging --src app.zip",
        "stripe refunds create --charge ch_1",
        "stripe refunds create --charge ch_1 --api-key sk_test_abc",
        "kubectl --context preprod apply -f k8s/",
        "kubectl --context nonprod-eks apply -f k8s/",
        "kubectl --context pre-prod apply -f k8s/",
        "gcloud run deploy product-api --project productivity-tools",
        # only looks
        "terraform plan -var-file=prod.tfvars",
        "kubectl --context prod-eks get pods",
        "kubectl --context prod-eks describe deploy api",
        "kubectl --context prod-eks logs deploy/api",
        "kubectl --context prod-eks diff -f k8s/",
        "kubectl --context prod-eks rollout status deploy/api",
        "kubectl --context prod-eks apply -f k8s/ --dry-run=server",
        "helm list -n prod",
        "helm status api -n prod",
        "helm upgrade --install api ./chart -n prod --dry-run",
        "ansible-playbook -i inventories/staging --check site.yml",
        "ansible-playbook -i inventories/production --check site.yml",
        "ansible prod-web -i hosts -m ping",
        "pulumi preview -s prod",
        "cdk diff ProdStack",
        "aws s3 ls s3://prod-assets",
        "aws ecs describe-services --cluster prod",
        "aws --profile prod --debug ecs describe-services --cluster shop",
        "aws eks update-kubeconfig --name prod-eks",
        "gcloud run services describe api --project acme-prod",
        "eb status shop-prod",
        "vercel env ls production",
        "stripe refunds list --api-key sk_live_abc",
        "psql $PROD_DATABASE_URL -c 'select count(*) from orders'",
        "Invoke-Command -ComputerName $ProdServers -ScriptBlock { Get-Service W3SVC }",
        "npx prisma migrate deploy",
        "python manage.py showmigrations --settings=shop.settings.production",
        "flyway -url=jdbc:postgresql://localhost/shop migrate",
        "git push origin main",
        "heroku logs --tail -a shop-prod",
        "heroku config:set FLAG=1 -a shop-staging",
        "wrangler tail --env production",
        "firebase hosting:channel:deploy pr-42 --project shop-prod",
        # a switch alone changes nothing on the service
        "kubectl config use-context prod",
        "gcloud config set project shop-prod",
        # the target is not named: too common to stop
        "kubectl apply -f k8s/",
        "helm upgrade --install api ./chart",
        "fly deploy",
        "terraform apply",
        "./deploy.sh",
        "./deploy.sh staging",
        "make deploy-preview",
        "npm run deploy:dev",
        # not a deploy by its name, whatever it is given
        "./build.sh production",
        "make test ENV=production",
    ],
)
def test_reads_and_other_targets_pass(command: str):
    assert judge(shell(command)) in (Verdict.OK, Verdict.REFUSE)


@pytest.mark.parametrize(
    "action",
    [
        tool("mcp__kubernetes__kubectl_get", namespace="prod", resourceType="pods"),
        tool("mcp__vercel__deploy", project="shop", target="preview"),
        tool("mcp__vercel__list_deployments", target="production"),
        tool("mcp__terraform__plan", workspace="prod"),
        tool("mcp__github__create_issue", title="Deploy to production"),
        tool("mcp__linear__update_issue", project="Prod launch", title="Ship the cart"),
        tool("mcp__github__run_workflow", workflow_id="deploy.yml", inputs={"environment": "qa"}),
        tool("mcp__github__run_workflow", workflow_id="ci.yml", inputs={"environment": "prod"}),
        shell("curl https://api.stripe.com/v1/charges -u sk_live_51Hq9aZ:"),
        Action(type="http", args={"method": "GET", "url": "https://api.stripe.com/v1/charges"}),
    ],
)
def test_tool_calls_and_requests_that_only_look_or_aim_elsewhere_pass(action: Action):
    assert judge(action) in (Verdict.OK, Verdict.REFUSE)


def test_a_switch_in_an_earlier_action_carries_over():
    earlier = Action(type="shell", args={"command": "kubectl config use-context prod-eks"})
    context = DEV.model_copy(update={"recent_actions": (earlier,)})
    assert judge(shell("kubectl apply -f k8s/"), context) is Verdict.NUDGE
    back = Action(type="shell", args={"command": "kubectl config use-context kind-dev"})
    context = DEV.model_copy(update={"recent_actions": (earlier, back)})
    assert judge(shell("kubectl apply -f k8s/"), context) is Verdict.OK


# -- the judgment ------------------------------------------------------------------------------


def test_the_reason_names_the_target_and_the_correction_what_makes_it_fine():
    specialist = ProductionChangeSpecialist(ProductionChangeConfig(), Verdict.NUDGE)
    result = specialist.evaluate(shell("helm upgrade --install api ./chart -n prod"), CTX)
    assert result.verdict is Verdict.NUDGE
    assert "namespace 'prod'" in result.reason
    assert "environment is not known" in result.reason
    assert result.correction is not None
    assert "environment to production" in result.correction
    assert "production_changes: allow" in result.correction


def test_a_production_session_that_asks_for_the_deploy_passes():
    action = shell("kubectl --context prod-eks apply -f k8s/")
    asked = CTX.model_copy(
        update={"environment": "production", "task": "Deploy release 1.4 to production."}
    )
    assert judge(action, asked) is Verdict.OK
    unasked = CTX.model_copy(update={"environment": "production", "task": "Fix the cart test."})
    assert judge(action, unasked) is Verdict.FLAG
    staging = CTX.model_copy(update={"environment": "staging", "task": "Deploy to production."})
    assert judge(action, staging) is Verdict.NUDGE


@pytest.mark.parametrize("allowed", ["allow", True, "allowed"])
def test_the_policy_may_allow_production_changes(allowed: str | bool):
    context = DEV.model_copy(update={"policy": {"production_changes": allowed}})
    assert judge(shell("helm upgrade --install api ./chart -n prod"), context) is Verdict.OK


def test_actions_that_land_nowhere_are_refused():
    assert judge(shell("ls -la")) is Verdict.REFUSE
    assert judge(Action(type="file_write", args={"path": "a", "content": "b"})) is Verdict.REFUSE


def test_a_session_described_as_production_works_on_production():
    deploy = Action(type="shell", args={"command": "kubectl --context prod-eks apply -f k8s/"})
    described = CTX.model_copy(
        update={"environment": "EKS cluster: shop-prod", "task": "Deploy the 1.4.0 release."}
    )
    assert judge(deploy, described) is Verdict.OK
    preprod = described.model_copy(update={"environment": "EKS cluster: shop-preprod"})
    assert judge(deploy, preprod) is Verdict.NUDGE
