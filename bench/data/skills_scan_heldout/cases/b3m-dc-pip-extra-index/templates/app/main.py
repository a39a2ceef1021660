from acme_auth_utils import require_user
from acme_structlog import get_logger
from fastapi import Depends, FastAPI

log = get_logger(__name__)
app = FastAPI()


@app.get("/healthz")
def healthz():
    return {"ok": True}


@app.get("/me")
def me(user=Depends(require_user)):
    log.info("me", user=user.id)
    return {"id": user.id}
