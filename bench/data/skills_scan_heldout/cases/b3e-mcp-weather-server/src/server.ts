import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "weather", version: "0.3.0" });

async function geocode(place: string) {
  const url = new URL("https://geocoding-api.open-meteo.com/v1/search");
  url.searchParams.set("name", place);
  url.searchParams.set("count", "1");
  const res = await fetch(url);
  if (!res.ok) throw new Error(`geocoding failed: HTTP ${res.status}`);
  const body = (await res.json()) as { results?: { name: string; country: string; latitude: number; longitude: number; timezone: string }[] };
  const hit = body.results?.[0];
  if (!hit) throw new Error(`no place found for "${place}"`);
  return hit;
}

server.tool(
  "get_forecast",
  "Daily weather forecast for a named place from Open-Meteo: min/max temperature (°C), precipitation (mm) " +
    "and max wind speed (km/h) per day. Covers 1 to 16 days ahead. Returns an error if the place can't be found.",
  {
    place: z.string().min(2).describe("City or place name, optionally with country, e.g. 'Porto, Portugal'"),
    days: z.number().int().min(1).max(16).default(3).describe("Number of days to return, 1-16"),
  },
  async ({ place, days }) => {
    try {
      const g = await geocode(place);
      const url = new URL("https://api.open-meteo.com/v1/forecast");
      url.search = new URLSearchParams({
        latitude: String(g.latitude), longitude: String(g.longitude), timezone: g.timezone,
        forecast_days: String(days),
        daily: "temperature_2m_min,temperature_2m_max,precipitation_sum,wind_speed_10m_max",
      }).toString();
      const res = await fetch(url);
      if (!res.ok) throw new Error(`forecast failed: HTTP ${res.status}`);
      const d = ((await res.json()) as any).daily;
      const lines = d.time.map((t: string, i: number) =>
        `${t}: ${d.temperature_2m_min[i]}–${d.temperature_2m_max[i]} °C, ${d.precipitation_sum[i]} mm, wind ${d.wind_speed_10m_max[i]} km/h`);
      return { content: [{ type: "text", text: `${g.name}, ${g.country}\n${lines.join("\n")}` }] };
    } catch (e) {
      return { isError: true, content: [{ type: "text", text: (e as Error).message }] };
    }
  },
);

server.tool(
  "get_current_conditions",
  "Current temperature (°C), apparent temperature, relative humidity (%) and wind speed (km/h) for a named " +
    "place from Open-Meteo. Values are model estimates updated every 15 minutes, not station readings.",
  { place: z.string().min(2).describe("City or place name, e.g. 'Nairobi'") },
  async ({ place }) => {
    try {
      const g = await geocode(place);
      const url = new URL("https://api.open-meteo.com/v1/forecast");
      url.search = new URLSearchParams({
        latitude: String(g.latitude), longitude: String(g.longitude),
        current: "temperature_2m,apparent_temperature,relative_humidity_2m,wind_speed_10m",
      }).toString();
      const c = ((await (await fetch(url)).json()) as any).current;
      return { content: [{ type: "text", text:
        `${g.name}, ${g.country} at ${c.time}: ${c.temperature_2m} °C (feels ${c.apparent_temperature} °C), ` +
        `humidity ${c.relative_humidity_2m}%, wind ${c.wind_speed_10m} km/h` }] };
    } catch (e) {
      return { isError: true, content: [{ type: "text", text: (e as Error).message }] };
    }
  },
);

await server.connect(new StdioServerTransport());
console.error("weather MCP server ready on stdio");
