"""Each store found from the variables its cloud's SDKs read (`core/io/stores.py`), as the
Azure CLI and SDKs read a connection string; and no secret of the environment in a message."""

from __future__ import annotations

import pytest

from flipgate.core.io import remote, stores

KEY = "a2V5a2V5a2V5a2V5"


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "AZURE_STORAGE_CONNECTION_STRING",
        "AZURE_STORAGE_ACCOUNT_NAME",
        "AZURE_STORAGE_ACCOUNT",
        "AZURE_STORAGE_ACCOUNT_KEY",
        "AZURE_STORAGE_KEY",
        "AZURE_STORAGE_SAS_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("connection", "options"),
    [
        (  # the public cloud: pyarrow's own endpoints
            f"DefaultEndpointsProtocol=https;AccountName=evals;AccountKey={KEY};"
            "EndpointSuffix=core.windows.net",
            {
                "account_name": "evals",
                "account_key": KEY,
                "blob_storage_authority": ".blob.core.windows.net",
                "dfs_storage_authority": ".dfs.core.windows.net",
            },
        ),
        (  # the account's own host in a national cloud, with a SAS token
            "AccountName=evals;SharedAccessSignature=sv=2024&sig=abc%3D;"
            "BlobEndpoint=https://evals.blob.core.chinacloudapi.cn/",
            {
                "account_name": "evals",
                "sas_token": "sv=2024&sig=abc%3D",
                "blob_storage_authority": ".blob.core.chinacloudapi.cn",
                "blob_storage_scheme": "https",
                "dfs_storage_authority": ".dfs.core.chinacloudapi.cn",
                "dfs_storage_scheme": "https",
            },
        ),
        (  # Azurite, the account in the path
            "UseDevelopmentStorage=true",
            {
                "account_name": "devstoreaccount1",
                "account_key": stores.AZURITE_KEY,
                "blob_storage_authority": "127.0.0.1:10000",
                "blob_storage_scheme": "http",
                "dfs_storage_authority": "127.0.0.1:10000",
                "dfs_storage_scheme": "http",
            },
        ),
    ],
    ids=["public", "national", "azurite"],
)
def test_a_connection_string_names_the_account_its_secret_and_its_endpoint(
    monkeypatch: pytest.MonkeyPatch, connection: str, options: dict[str, str]
) -> None:
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", connection)
    assert stores.azure_options() == options


def test_the_account_variables_without_a_connection_string(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AZURE_STORAGE_ACCOUNT", "evals")  # the Azure CLI's names
    monkeypatch.setenv("AZURE_STORAGE_KEY", KEY)
    assert stores.azure_options() == {"account_name": "evals", "account_key": KEY}
    monkeypatch.delenv("AZURE_STORAGE_KEY")  # then Azure's default credential
    assert stores.azure_options() == {"account_name": "evals"}
    monkeypatch.delenv("AZURE_STORAGE_ACCOUNT")
    with pytest.raises(stores.NotConfigured, match="AZURE_STORAGE_CONNECTION_STRING"):
        stores.azure_options()


def test_a_stores_message_is_printed_without_the_environments_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", f"AccountName=evals;AccountKey={KEY}")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s3cr3t-access-key")
    said = remote._why(
        OSError(f"GET https://evals.blob.example/c/b?sig=tok failed; key {KEY}, s3cr3t-access-key")
    )
    assert "tok" not in said and KEY not in said and "s3cr3t" not in said
    assert "https://evals.blob.example/c/b failed" in said
