// Lectura y escritura en Google Sheets con cuenta de servicio.
// Credenciales: ruta en GOOGLE_APPLICATION_CREDENTIALS (se leen localmente).
import { readFile } from "node:fs/promises";
import { google } from "googleapis";

const [, , accion, hojaId, rango, archivo] = process.argv;
if (!accion || !hojaId || !rango) {
  console.error("uso: node hoja.mjs leer|anadir ID_HOJA RANGO [CSV]");
  process.exit(2);
}

const auth = new google.auth.GoogleAuth({
  scopes: accion === "leer"
    ? ["https://www.googleapis.com/auth/spreadsheets.readonly"]
    : ["https://www.googleapis.com/auth/spreadsheets"],
});
const sheets = google.sheets({ version: "v4", auth });

function parseCsv(texto) {
  const sep = texto.split("\n")[0].includes(";") ? ";" : ",";
  return texto.trim().split(/\r?\n/).map((l) => l.split(sep).map((c) => c.trim()));
}

if (accion === "leer") {
  const res = await sheets.spreadsheets.values.get({ spreadsheetId: hojaId, range: rango });
  for (const fila of res.data.values ?? []) console.log(fila.join("\t"));
} else if (accion === "anadir") {
  const filas = parseCsv(await readFile(archivo, "utf8"));
  const pestana = rango.split("!")[0];
  const cab = await sheets.spreadsheets.values.get({ spreadsheetId: hojaId, range: `${pestana}!1:1` });
  const columnas = cab.data.values?.[0]?.length ?? 0;
  if (columnas && filas.some((f) => f.length !== columnas)) {
    console.error(`La hoja tiene ${columnas} columnas; el CSV no coincide. No se escribe nada.`);
    process.exit(1);
  }
  const res = await sheets.spreadsheets.values.append({
    spreadsheetId: hojaId,
    range: rango,
    valueInputOption: "USER_ENTERED",
    insertDataOption: "INSERT_ROWS",
    requestBody: { values: filas },
  });
  console.log(`Actualizado: ${res.data.updates.updatedRange} (${res.data.updates.updatedRows} filas)`);
} else {
  console.error(`Acción desconocida: ${accion}`);
  process.exit(2);
}
