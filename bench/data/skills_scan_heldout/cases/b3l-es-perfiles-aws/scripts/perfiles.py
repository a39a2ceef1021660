#!/usr/bin/env python3
"""Resumen enmascarado de perfiles AWS. Solo lectura local; no hace llamadas de red."""
import configparser, os, re
from pathlib import Path

cfg_path = Path(os.environ.get("AWS_CONFIG_FILE", "~/.aws/config")).expanduser()
cred_path = Path(os.environ.get("AWS_SHARED_CREDENTIALS_FILE", "~/.aws/credentials")).expanduser()

def mask(valor, visibles=4):
    valor = valor or ""
    if len(valor) <= visibles * 2:
        return "*" * len(valor)
    return valor[:visibles] + "*" * (len(valor) - 2 * visibles) + valor[-visibles:]

def mask_cuenta(texto):
    return re.sub(r"\b(\d{8})(\d{4})\b", lambda m: "*" * 8 + m.group(2), texto)

config = configparser.RawConfigParser(); config.read(cfg_path)
creds = configparser.RawConfigParser(); creds.read(cred_path)

perfiles, avisos = {}, []
for sec in config.sections():
    if sec == "default":
        perfiles["default"] = config[sec]
    elif sec.startswith("profile "):
        perfiles[sec[len("profile "):]] = config[sec]
    elif not sec.startswith(("sso-session ", "services ")):
        avisos.append(f"[{sec}] en config debería ser [profile {sec}]")
for sec in creds.sections():
    if sec.startswith("profile "):
        avisos.append(f"[{sec}] en credentials debería ser [{sec[8:]}]")
    perfiles.setdefault(sec, {})

print(f"{'perfil':<16}{'región':<14}{'tipo':<13}detalle")
for nombre, p in sorted(perfiles.items()):
    region = p.get("region") or os.environ.get("AWS_REGION") or "-"
    if region == "-":
        avisos.append(f"{nombre}: sin región")
    if "role_arn" in p:
        tipo = "rol"
        detalle = f"role_arn={mask_cuenta(p['role_arn'])} (origen: {p.get('source_profile', p.get('credential_source', '?'))})"
        if p.get("source_profile") and p["source_profile"] not in perfiles:
            avisos.append(f"{nombre}: source_profile '{p['source_profile']}' no existe")
    elif "sso_session" in p or "sso_start_url" in p:
        tipo = "sso"
        sesion = p.get("sso_session", "")
        if sesion and not config.has_section(f"sso-session {sesion}"):
            avisos.append(f"{nombre}: sso_session '{sesion}' no definida")
        if not sesion and "sso_region" not in p:
            avisos.append(f"{nombre}: falta sso_region")
        cuenta = p.get("sso_account_id", "")
        detalle = f"sso_session={sesion or '-'}, cuenta {'*' * max(len(cuenta) - 4, 0) + cuenta[-4:]}"
    elif creds.has_section(nombre) and creds.has_option(nombre, "aws_access_key_id"):
        tipo = "claves"
        detalle = f"aws_access_key_id={mask(creds.get(nombre, 'aws_access_key_id'))}"
    else:
        tipo, detalle = "?", "sin credenciales conocidas"
    print(f"{nombre:<16}{region:<14}{tipo:<13}{detalle}")

if avisos:
    print("\nAvisos:")
    for a in avisos:
        print(f"  - {a}")
