#!/usr/bin/env python3
"""Génère une facture HTML + PDF par client à partir d'un CSV de prestations."""
import argparse, csv, html, json, shutil, subprocess, sys, tempfile
from collections import defaultdict
from decimal import Decimal, ROUND_HALF_UP
from pathlib import Path

CENT = Decimal("0.01")

def montant(txt):
    return Decimal(txt.replace("\u00a0", "").replace(" ", "").replace(",", "."))

def euros(d):
    return f"{d.quantize(CENT, ROUND_HALF_UP):,.2f} €".replace(",", " ").replace(".", ",")

def numero_suivant(num, i):
    annee, seq = num.split("-")
    return f"{annee}-{int(seq) + i:0{len(seq)}d}"

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--premier-numero", required=True)
    ap.add_argument("--date", required=True)
    ap.add_argument("--sortie", default="factures")
    ap.add_argument("--sans-tva", action="store_true")
    a = ap.parse_args()

    src = Path(a.csv)
    emetteur_path = src.with_name("emetteur.json")
    if not emetteur_path.exists():
        sys.exit(f"{emetteur_path} introuvable : demander les informations de l'émetteur.")
    emetteur = json.loads(emetteur_path.read_text(encoding="utf-8"))
    modele = (Path(__file__).parent.parent / "templates" / "facture.html").read_text(encoding="utf-8")

    par_client = defaultdict(list)
    with src.open(encoding="utf-8-sig", newline="") as f:
        for row in csv.DictReader(f, delimiter=";"):
            par_client[(row["client"], row["adresse"])].append(row)

    sortie = Path(a.sortie); sortie.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="factures-"))
    recap = []
    try:
        for i, ((client, adresse), lignes) in enumerate(sorted(par_client.items())):
            num = numero_suivant(a.premier_numero, i)
            ht = tva = Decimal(0); rows = []
            for l in lignes:
                total = (montant(l["quantite"]) * montant(l["prix_unitaire_ht"])).quantize(CENT, ROUND_HALF_UP)
                taux = Decimal(0) if a.sans_tva else montant(l["taux_tva"])
                ht += total; tva += (total * taux / 100).quantize(CENT, ROUND_HALF_UP)
                rows.append(f"<tr><td>{html.escape(l['description'])}</td><td>{l['quantite']}</td>"
                            f"<td>{euros(montant(l['prix_unitaire_ht']))}</td><td>{euros(total)}</td></tr>")
            mention = "TVA non applicable, art. 293 B du CGI" if a.sans_tva else ""
            page = modele.format(numero=num, date=a.date, client=html.escape(client),
                                 adresse=html.escape(adresse), lignes="\n".join(rows),
                                 total_ht=euros(ht), total_tva=euros(tva), total_ttc=euros(ht + tva),
                                 mention_tva=mention, **{k: html.escape(v) for k, v in emetteur.items()})
            fichier = tmp / f"facture-{num}.html"
            fichier.write_text(page, encoding="utf-8")
            shutil.copy(fichier, sortie / fichier.name)
            if shutil.which("libreoffice"):
                subprocess.run(["libreoffice", "--headless", "--convert-to", "pdf",
                                "--outdir", str(sortie), str(fichier)], check=True,
                               stdout=subprocess.DEVNULL)
            recap.append((num, client, euros(ht + tva)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    for num, client, ttc in recap:
        print(f"{num}  {client:<40} {ttc:>14}")

if __name__ == "__main__":
    main()
