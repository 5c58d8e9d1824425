"""Defences taken away and credentials taken from the machine, read as acts."""
# ruff: noqa: E501

from __future__ import annotations

import pytest

from specialists.shellparse import parse
from specialists.understand.defences import (
    credentials_taken,
    defences_off,
    metadata_credential,
)
from specialists.understand.network import command_targets


def _defences(command: str) -> set[str]:
    return {d.what for cmd in parse(command).commands for d in defences_off(cmd)}


def _taken(command: str) -> set[str]:
    return {
        t.how
        for cmd in parse(command).commands
        for t in credentials_taken(cmd, command_targets(cmd))
    }


@pytest.mark.parametrize(
    ("command", "what"),
    [
        ("Set-MpPreference -DisableRealtimeMonitoring 1", "antivirus"),
        ("set-mppreference -DisableBehaviorMonitoring:$true", "antivirus"),
        ("Add-MpPreference -ExclusionProcess node.exe", "antivirus"),
        (
            'reg.exe add "HKLM\\SOFTWARE\\Policies\\Microsoft\\Windows Defender" '
            "/v DisableAntiSpyware /t REG_DWORD /d 1 /f",
            "antivirus",
        ),
        ("Set-NetFirewallProfile -All -Enabled False", "firewall"),
        ("Set-MpPreference -ExclusionPath C:\\", "antivirus"),
        ("Uninstall-WindowsFeature -Name Windows-Defender", "antivirus"),
        (
            'reg add "HKLM\\SOFTWARE\\Microsoft\\Windows Defender\\Exclusions\\Paths" /v C:\\ /t REG_DWORD /d 0 /f',
            "antivirus",
        ),
        ("auditpol /clear /y", "host_audit"),
        ("auditpol /set /category:* /success:disable /failure:disable", "host_audit"),
        ("Disable-BitLocker -MountPoint C:", "encryption"),
        ("manage-bde -off C:", "encryption"),
        (
            "reg add HKLM\\SOFTWARE\\Policies\\Microsoft\\Windows\\System /v EnableSmartScreen /t REG_DWORD /d 0 /f",
            "smartscreen",
        ),
        ("netsh advfirewall set currentprofile state off", "firewall"),
        ("netsh firewall set opmode mode=disable", "firewall"),
        (
            "reg add HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Policies\\System "
            "/v EnableLUA /t REG_DWORD /d 0 /f",
            "uac",
        ),
        ("Set-ExecutionPolicy Bypass", "script_policy"),
        ("Set-ExecutionPolicy -ExecutionPolicy Unrestricted -Scope LocalMachine", "script_policy"),
        ('pwsh -Command "Clear-Content (Get-PSReadlineOption).HistorySavePath"', "history"),
        ("aws guardduty delete-detector --detector-id abc", "audit"),
        ("aws configservice stop-configuration-recorder --configuration-recorder-name x", "audit"),
        ("gcloud logging sinks delete audit", "audit"),
        (
            "aws ec2 authorize-security-group-ingress --group-id s --protocol all --cidr ::/0",
            "exposure",
        ),
        (
            "aws ec2 authorize-security-group-ingress --group-id s --ip-permissions "
            "IpProtocol=tcp,FromPort=3389,ToPort=3389,IpRanges=[{CidrIp=0.0.0.0/0}]",
            "exposure",
        ),
        (
            "gcloud compute firewall-rules create x --source-ranges 0.0.0.0/0 --allow tcp",
            "exposure",
        ),
        (
            "az network nsg rule create -g r --nsg-name n -n x --priority 1 "
            "--source-address-prefixes '*' --destination-port-ranges 22",
            "exposure",
        ),
        ("aws s3api put-bucket-acl --bucket b --acl public-read-write", "public_storage"),
        ("gsutil iam ch allUsers:objectViewer gs://b", "public_storage"),
        (
            "aws s3api put-bucket-policy --bucket b --policy "
            '\'{"Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"s3:GetObject"}]}\'',
            "public_storage",
        ),
        (
            "gcloud storage buckets add-iam-policy-binding gs://b --member=allUsers "
            "--role=roles/storage.objectViewer",
            "public_storage",
        ),
        ("az storage container create -n c --public-access container", "public_storage"),
        ("gh api --method PUT repos/o/r/collaborators/u -f permission=maintain", "exposure"),
    ],
)
def test_a_defence_taken_away(command: str, what: str) -> None:
    assert what in _defences(command)


@pytest.mark.parametrize(
    "command",
    [
        "Get-MpPreference",
        "Set-MpPreference -SignatureUpdateInterval 4",
        "Set-MpPreference -DisableRealtimeMonitoring 0",
        "Remove-MpPreference -ExclusionPath C:\\build",
        "Set-NetFirewallProfile -Profile Public -Enabled True",
        "netsh advfirewall set allprofiles state on",
        "reg add HKCU\\Software\\App /v DisableTips /d 1 /f",
        "reg add HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Policies\\System /v EnableLUA /d 1",
        "Set-ExecutionPolicy RemoteSigned",
        "Set-ExecutionPolicy Bypass -Scope Process",
        "Set-ExecutionPolicy Unrestricted -Scope CurrentUser",
        "Clear-History",
        "aws cloudtrail describe-trails",
        "aws ec2 authorize-security-group-ingress --group-id s --protocol tcp --port 443 --cidr 0.0.0.0/0",
        "aws ec2 authorize-security-group-ingress --group-id s --protocol tcp --port 22 --cidr 203.0.113.7/32",
        "gcloud compute firewall-rules create web --allow tcp:80,tcp:443 --source-ranges 0.0.0.0/0",
        "gcloud compute firewall-rules create db --allow tcp:5432 --source-ranges 10.0.0.0/8",
        "az network nsg rule create -g r --nsg-name n -n x --priority 1 --source-address-prefixes '*' --access Deny",
        "aws s3api put-bucket-acl --bucket b --acl private",
        "aws s3api put-bucket-policy --bucket b --policy file://policy.json",
        (
            "aws s3api put-bucket-policy --bucket b --policy "
            '\'{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject",'
            '"Condition":{"StringEquals":{"aws:SourceVpce":"vpce-1a2b"}}}]}\''
        ),
        "az storage container set-permission -n c --public-access off",
        "gh api -X PUT repos/o/r/collaborators/u -f permission=push",
        "gh api repos/o/r/collaborators",
        "Get-MpComputerStatus",
        "Get-NetFirewallProfile",
        "auditpol /get /category:*",
        "manage-bde -status",
        "Enable-BitLocker -MountPoint C: -TpmProtector",
        "Install-WindowsFeature Windows-Defender",
    ],
)
def test_no_defence_taken_away(command: str) -> None:
    assert _defences(command) == set()


@pytest.mark.parametrize(
    ("url", "credential"),
    [
        (
            "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token",
            True,
        ),
        (
            "http://169.254.169.254/computeMetadata/v1/instance/service-accounts/x@y/identity?audience=a",
            True,
        ),
        (
            "http://169.254.169.254/metadata/identity/oauth2/token?resource=https://vault.azure.net",
            True,
        ),
        ("http://169.254.169.254/latest/meta-data/iam/security-credentials/app-role", True),
        ("http://[fd00:ec2::254]/latest/meta-data/iam/security-credentials/r", True),
        ("http://169.254.170.2/v2/credentials/abc", True),
        ("http://169.254.169.254/latest/meta-data/iam/security-credentials/", False),
        ("http://169.254.169.254/latest/meta-data/instance-id", False),
        ("http://metadata.google.internal/computeMetadata/v1/instance/zone", False),
        ("https://example.com/service-accounts/default/token", False),
    ],
)
def test_metadata_credentials(url: str, credential: bool) -> None:
    assert metadata_credential(url) is credential


@pytest.mark.parametrize(
    ("command", "how"),
    [
        (
            "curl -H 'Metadata-Flavor: Google' http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token",
            "metadata_token",
        ),
        (
            "wget -qO- http://169.254.169.254/latest/meta-data/iam/security-credentials/web",
            "metadata_token",
        ),
        (
            "python3 -c \"import requests; print(requests.get('http://169.254.169.254/metadata/identity/oauth2/token', headers={'Metadata': 'true'}).text)\"",
            "metadata_token",
        ),
        (
            "pwsh -Command \"Invoke-RestMethod -Uri 'http://169.254.169.254/metadata/identity/oauth2/token'\"",
            "metadata_token",
        ),
        ("gpg2 --armor --export-secret-subkeys ABCD", "key_export"),
        ("reg save HKLM\\SYSTEM C:\\t\\sys.hiv", "account_hive"),
        ("reg.exe save hklm\\security sec.hiv", "account_hive"),
        ('vaultcmd /listcreds:"Windows Credentials"', "credential_store"),
        # the saved credentials' targets and accounts listed, as vaultcmd /listcreds lists
        # them (the step before taking one), and the dialog that shows them
        ("cmdkey /list", "credential_store"),
        ("cmdkey.exe /list:TERMSRV/*", "credential_store"),
        ("rundll32 keymgr.dll,KRShowKeyMgr", "credential_store"),
        # DPAPI: what a browser's saved passwords are decrypted with
        (
            "pwsh -c \"[Security.Cryptography.ProtectedData]::Unprotect($k, $null, 'CurrentUser')\"",
            "dpapi_decrypt",
        ),
        # LSASS's memory dumped: comsvcs.dll by export name or ordinal, procdump, Out-Minidump
        (
            "rundll32.exe C:\\Windows\\System32\\comsvcs.dll, MiniDump 624 C:\\t\\l.dmp full",
            "lsass_dump",
        ),
        ("rundll32 comsvcs.dll #24 624 l.dmp full", "lsass_dump"),
        ("procdump64.exe -accepteula -ma lsass.exe out.dmp", "lsass_dump"),
        ("pwsh -c 'Get-Process lsass | Out-Minidump'", "lsass_dump"),
        # the tools made for it, and mimikatz's modules under any program name
        ('mimikatz.exe "privilege::debug" "sekurlsa::logonpasswords" exit', "dumping_tool"),
        ('pwsh -c "Invoke-Mimikatz -Command \'""lsadump::sam""\'"', "dumping_tool"),
        ('m.exe "sekurlsa::logonpasswords" exit', "dumping_tool"),
        # the domain's account database and the hives out of a shadow copy
        ('ntdsutil "ac i ntds" "ifm" "create full c:\\t\\ifm" q q', "account_hive"),
        ("esentutl.exe /y /vss C:\\Windows\\NTDS\\ntds.dit /d C:\\t\\ntds.dit", "account_hive"),
        ("netsh wlan show profile name=Home key=clear", "wifi_keys"),
    ],
)
def test_a_credential_taken(command: str, how: str) -> None:
    assert how in _taken(command)


@pytest.mark.parametrize(
    "command",
    [
        "curl http://169.254.169.254/latest/meta-data/placement/availability-zone",
        "gpg --export --armor me@example.com",
        "gpg --list-secret-keys",
        "reg save HKCU\\Software\\App app.hiv",
        "reg query HKLM\\SAM",
        "cmdkey /add:server01 /user:dev",
        "cmdkey /delete:server01",
        "netsh wlan show profiles",
        # a dump of the developer's own process
        "procdump -ma 4312 app.dmp",
        "procdump -ma node.exe crash.dmp",
        "rundll32 url.dll,FileProtocolHandler https://example.com",
    ],
)
def test_no_credential_taken(command: str) -> None:
    assert _taken(command) == set()


@pytest.mark.parametrize(
    "command",
    [
        "certutil -addstore Root proxy-ca.cer",
        "certutil.exe -f -addstore AuthRoot proxy-ca.cer",
        "Import-Certificate -FilePath proxy.cer -CertStoreLocation 'Cert:\\LocalMachine\\Root'",
        "Import-PfxCertificate -FilePath ca.pfx -CertStoreLocation Cert:/CurrentUser/Root",
        "security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain ca.crt",
        "trust anchor --store ca.crt",
        "certutil -d sql:/home/u/.pki/nssdb -A -t 'C,,' -n corp -i corp.crt",
        "keytool -importcert -cacerts -alias corp -file corp.crt -noprompt",
        "keytool -import -trustcacerts -keystore /usr/lib/jvm/java-21/lib/security/cacerts -file corp.crt",
    ],
)
def test_a_root_made_trusted_whatever_the_platform(command: str) -> None:
    assert "root_trust" in _defences(command)


@pytest.mark.parametrize(
    "command",
    [
        "certutil -hashfile setup.exe SHA256",
        "certutil -addstore My client.cer",
        "Import-Certificate -FilePath client.cer -CertStoreLocation Cert:\\CurrentUser\\My",
        "security add-trusted-cert -r deny ca.crt",
        "security find-certificate -a -p",
        "trust anchor --remove ca.crt",
        "trust list",
        "certutil -d sql:/home/u/.pki/nssdb -A -t 'P,,' -n srv -i srv.crt",
        "keytool -importcert -keystore client.jks -file client.crt",
        "keytool -list -cacerts",
    ],
)
def test_no_root_made_trusted(command: str) -> None:
    assert "root_trust" not in _defences(command)


@pytest.mark.parametrize(
    "command",
    [
        "socat TCP-LISTEN:2375,reuseaddr,fork UNIX-CONNECT:/var/run/docker.sock",
        "sudo dockerd -H unix:///var/run/docker.sock -H tcp://0.0.0.0:2375",
        "nohup dockerd --host=tcp://:2375 &",
        "dockerd -H 0.0.0.0:2375",
        "dockerd --tlsverify=false -H tcp://0.0.0.0:2376",
    ],
)
def test_the_docker_api_served_on_the_network(command: str):
    assert "docker_api" in _defences(command)


@pytest.mark.parametrize(
    "command",
    [
        "dockerd -H unix:///var/run/docker.sock -H tcp://127.0.0.1:2375",
        "dockerd --tlsverify --tlscacert=ca.pem -H tcp://0.0.0.0:2376",
        "socat TCP-LISTEN:2375,bind=127.0.0.1,fork UNIX-CONNECT:/var/run/docker.sock",
        "socat TCP-LISTEN:8080,fork TCP:localhost:3000",
        "socat - UNIX-CONNECT:/var/run/docker.sock",
        "dockerd -H fd://",
    ],
)
def test_the_docker_api_kept_local_or_behind_tls(command: str):
    assert "docker_api" not in _defences(command)
