"""The object store a URL names, built from the environment its cloud's own SDKs read, so that a
user who can list the bucket with the cloud's tool can gate the runs in it.

- `s3://`: pyarrow's own chain (AWS_ACCESS_KEY_ID and _SECRET_ACCESS_KEY, AWS_PROFILE, an
  instance role); an S3-compatible server (MinIO, R2) is named by AWS_ENDPOINT_URL_S3 or
  AWS_ENDPOINT_URL, as the AWS SDKs name it.
- `gs://`: GOOGLE_APPLICATION_CREDENTIALS or the machine's account; an emulator is named by
  STORAGE_EMULATOR_HOST, as Google's client libraries name it, and is read anonymously.
- `az://CONTAINER/PATH`: AZURE_STORAGE_CONNECTION_STRING (the account, its key or SAS token and
  its endpoint, as the Azure CLI and SDKs take it; Azurite's too), else AZURE_STORAGE_ACCOUNT_NAME
  (or AZURE_STORAGE_ACCOUNT) with AZURE_STORAGE_ACCOUNT_KEY (or AZURE_STORAGE_KEY) or
  AZURE_STORAGE_SAS_TOKEN, else Azure's default credential (a service principal's AZURE_CLIENT_ID,
  _SECRET and AZURE_TENANT_ID, a managed identity, `az login`). `abfs[s]://` URLs name their
  account themselves.

Every secret these hold is in `secrets()`, so that no message the store gives prints one.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

AZURITE_KEY = (  # Azurite's published development key, as `UseDevelopmentStorage=true` means it
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)
_DEVELOPMENT = {
    "AccountName": "devstoreaccount1",
    "AccountKey": AZURITE_KEY,
    "BlobEndpoint": "http://127.0.0.1:10000/devstoreaccount1",
}
_SECRET_VARIABLES = (
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AZURE_STORAGE_ACCOUNT_KEY",
    "AZURE_STORAGE_KEY",
    "AZURE_STORAGE_SAS_TOKEN",
    "AZURE_CLIENT_SECRET",
)


class NotConfigured(ValueError):
    """The environment names no account for the store: what to set, said to the user."""


def filesystem(url: str, timeout_s: float) -> tuple[Any, str]:
    """pyarrow's filesystem for `url` and the path within it."""
    import pyarrow.fs as pafs

    parts = urlsplit(url)
    scheme, path = parts.scheme.lower(), f"{parts.hostname}{parts.path}".rstrip("/")
    if scheme == "s3":
        return _s3(timeout_s), path
    if scheme == "gs":
        return _gcs(timeout_s), path
    if scheme == "az":  # object_store's and polars' name for Azure Blob Storage
        return _azure(), path
    found, inside = pafs.FileSystem.from_uri(url)
    return found, inside.rstrip("/")


def secrets() -> tuple[str, ...]:
    """The secrets the environment holds for the stores, none of which may be printed."""
    values = [os.environ.get(name, "") for name in _SECRET_VARIABLES]
    connection = _connection_string()
    values += [connection.get("AccountKey", ""), connection.get("SharedAccessSignature", "")]
    return tuple(value for value in values if len(value) >= 4)


def _s3(timeout_s: float) -> Any:
    """pyarrow reads neither the SDKs' endpoint variables nor a timeout from the URL."""
    import pyarrow.fs as pafs

    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    options: dict[str, Any] = {"connect_timeout": timeout_s, "request_timeout": timeout_s}
    if endpoint:
        address = urlsplit(endpoint)
        options |= {"endpoint_override": address.netloc, "scheme": address.scheme}
    return pafs.S3FileSystem(**options)


def _gcs(timeout_s: float) -> Any:
    import pyarrow.fs as pafs

    options: dict[str, Any] = {"retry_time_limit": timedelta(seconds=timeout_s)}
    emulator = os.environ.get("STORAGE_EMULATOR_HOST")
    if emulator:  # `host:port` or `http://host:port`, as google-cloud-storage takes it
        address = urlsplit(emulator if "://" in emulator else f"http://{emulator}")
        options |= {"anonymous": True, "endpoint_override": address.netloc}
        options["scheme"] = address.scheme
    return pafs.GcsFileSystem(**options)


def _azure() -> Any:
    import pyarrow.fs as pafs

    return pafs.AzureFileSystem(**azure_options())


def azure_options() -> dict[str, str]:
    """pyarrow's AzureFileSystem's arguments, from the environment."""
    connection = _connection_string()
    account = (
        connection.get("AccountName")
        or os.environ.get("AZURE_STORAGE_ACCOUNT_NAME")
        or os.environ.get("AZURE_STORAGE_ACCOUNT")
    )
    if not account:
        raise NotConfigured(
            "set AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT_NAME, to read az:// URLs"
        )
    options = {"account_name": account}
    key = (
        connection.get("AccountKey")
        or os.environ.get("AZURE_STORAGE_ACCOUNT_KEY")
        or os.environ.get("AZURE_STORAGE_KEY")
    )
    sas = connection.get("SharedAccessSignature") or os.environ.get("AZURE_STORAGE_SAS_TOKEN")
    if key:
        options["account_key"] = key
    elif sas:
        options["sas_token"] = sas.lstrip("?")
    endpoint = connection.get("BlobEndpoint")
    if endpoint:
        options |= _azure_endpoint(endpoint, account)
    elif connection.get("EndpointSuffix"):  # a national cloud: core.chinacloudapi.cn, ...
        suffix = connection["EndpointSuffix"]
        options |= {"blob_storage_authority": f".blob.{suffix}"}
        options |= {"dfs_storage_authority": f".dfs.{suffix}"}
    return options


def _azure_endpoint(endpoint: str, account: str) -> dict[str, str]:
    """The blob endpoint of a connection string as pyarrow takes it: `.host` for the account's
    own host name (`ACCOUNT.blob.example`, its DFS at `.dfs.example`), else `host:port` with the
    account in the path (an emulator's, whose one endpoint serves both of pyarrow's APIs)."""
    address = urlsplit(endpoint)
    blob = dfs = address.netloc
    if blob.startswith(f"{account}."):
        blob = blob[len(account) :]
        dfs = blob.replace(".blob.", ".dfs.", 1)
    return {
        "blob_storage_authority": blob,
        "blob_storage_scheme": address.scheme,
        "dfs_storage_authority": dfs,
        "dfs_storage_scheme": address.scheme,
    }


def _connection_string() -> dict[str, str]:
    """AZURE_STORAGE_CONNECTION_STRING's `Key=value;` pairs (a value may hold `=`)."""
    text = os.environ.get("AZURE_STORAGE_CONNECTION_STRING", "")
    pairs = dict(part.split("=", 1) for part in text.split(";") if "=" in part and part.strip())
    pairs = {key.strip(): value.strip() for key, value in pairs.items()}
    return _DEVELOPMENT if pairs.get("UseDevelopmentStorage", "").lower() == "true" else pairs
