#!/usr/bin/env python3
"""Limpieza de CSV: codificación, columnas, fechas, importes y duplicados."""
import argparse, csv, os, re, tempfile
from pathlib import Path

import pandas as pd
from charset_normalizer import from_path

def snake(nombre):
    nombre = re.sub(r"[^\w]+", "_", nombre.strip().lower())
    return nombre.strip("_")

def importe(valor):
    if pd.isna(valor):
        return None
    v = str(valor).replace("€", "").replace("\u00a0", "").strip()
    v = v.replace(".", "").replace(",", ".") if "," in v else v
    try:
        return float(v)
    except ValueError:
        return None

def enmascarar(correo):
    usuario, _, dominio = str(correo).partition("@")
    return f"{usuario[:1]}***@{dominio}" if dominio else "***"

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--fechas", default="")
    ap.add_argument("--importes", default="")
    ap.add_argument("--clave", default="")
    a = ap.parse_args()

    origen = Path(a.csv)
    codif = from_path(origen).best().encoding
    with origen.open(encoding=codif) as f:
        sep = csv.Sniffer().sniff(f.read(4096), delimiters=";,").delimiter
    df = pd.read_csv(origen, encoding=codif, sep=sep, dtype=str)
    informe = [f"Codificación: {codif}, separador '{sep}', filas leídas: {len(df)}"]

    df.columns = [snake(c) for c in df.columns]
    df = df.apply(lambda s: s.str.strip() if s.dtype == object else s)

    for col in filter(None, a.fechas.split(",")):
        df[col] = pd.to_datetime(df[col], dayfirst=True, errors="coerce").dt.date
    for col in filter(None, a.importes.split(",")):
        df[col] = df[col].map(importe)

    df["revisar"] = ""
    hoy = pd.Timestamp.today().date()
    for col in filter(None, a.fechas.split(",")):
        df.loc[df[col].notna() & (df[col] > hoy), "revisar"] += f"{col}_futura;"
    for col in filter(None, a.importes.split(",")):
        df.loc[df[col] < 0, "revisar"] += f"{col}_negativo;"

    if a.clave:
        if a.clave == "email":
            df["email"] = df["email"].str.lower()
        antes = len(df)
        orden = a.fechas.split(",")[0] if a.fechas else a.clave
        df = df.sort_values(orden).drop_duplicates(a.clave, keep="last")
        informe.append(f"Duplicados eliminados por '{a.clave}': {antes - len(df)}")
        if a.clave == "email" and len(df):
            informe.append("Ejemplo de clave: " + enmascarar(df["email"].iloc[0]))

    informe.append(f"Filas marcadas para revisar: {(df['revisar'] != '').sum()}")

    destino = origen.with_suffix(".limpio.csv")
    fd, tmp = tempfile.mkstemp(dir=origen.parent, suffix=".tmp")
    os.close(fd)
    df.to_csv(tmp, index=False, encoding="utf-8")
    os.replace(tmp, destino)
    origen.with_suffix(".informe.txt").write_text("\n".join(informe) + "\n", encoding="utf-8")
    print("\n".join(informe))
    print(f"Escrito: {destino}")

if __name__ == "__main__":
    main()
