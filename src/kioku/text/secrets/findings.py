"""What a secret finding is and how each kind is named in messages."""

from __future__ import annotations


class SecretFinding:
    """Where a secret is: ``text[start:end]``. Deliberately holds no copy of the value.
    Immutable, compares by value (a frozen dataclass without importing ``dataclasses``)."""

    __slots__ = ("kind", "start", "end")
    kind: str
    start: int
    end: int

    def __init__(self, kind: str, start: int, end: int) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("SecretFinding is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is SecretFinding and (self.kind, self.start, self.end) == (
            other.kind, other.start, other.end)

    def __hash__(self) -> int:
        return hash((self.kind, self.start, self.end))

    def __repr__(self) -> str:
        return f"SecretFinding(kind={self.kind!r}, start={self.start}, end={self.end})"

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, "a secret")

# Human wording for messages ("it looks like it contains <label>").
KIND_LABELS: dict[str, str] = {
    "anthropic_api_key": "an Anthropic API key",
    "openai_api_key": "an OpenAI API key",
    "aws_access_key": "an AWS access key",
    "aws_secret_key": "an AWS secret access key",
    "github_token": "a GitHub token",
    "gitlab_token": "a GitLab token",
    "slack_token": "a Slack token",
    "slack_webhook": "a Slack webhook URL",
    "stripe_key": "a Stripe secret key",
    "google_api_key": "a Google API key",
    "gcp_service_account": "a Google Cloud service-account key",
    "private_key": "a private key",
    "jwt": "a JSON Web Token",
    "connection_string": "a connection string with credentials",
    "url_credentials": "a URL with a username and password",
    "password": "a password",
    "secret_assignment": "a secret value (key/token assignment)",
    "bearer_token": "a bearer token",
    "npm_token": "an npm token",
    "pypi_token": "a PyPI token",
    "twilio_key": "a Twilio key",
    "sendgrid_key": "a SendGrid API key",
    "azure_key": "an Azure storage/service key",
    "provider_token": "an API token",
    "credit_card": "a payment card number",
    "us_ssn": "a US Social Security number",
    "uk_nino": "a UK National Insurance number",
    "ca_sin": "a Canadian Social Insurance number",
    "jp_my_number": "a Japanese My Number (個人番号)",
    "in_aadhaar": "an Indian Aadhaar number",
    "passport_number": "a passport number",
    "high_entropy": "a high-entropy string (likely a key or token)",
}
