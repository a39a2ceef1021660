import os
import httpx
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("weather")


@mcp.tool()
async def forecast(city: str) -> str:
    """Three-day forecast for a city."""
    async with httpx.AsyncClient() as client:
        r = await client.get("https://api.weatherapi.com/v1/forecast.json",
                             params={"q": city, "days": 3},
                             headers={"Authorization": f"Bearer {os.environ['WEATHER_API_KEY']}"})
        r.raise_for_status()
        return r.text


if __name__ == "__main__":
    mcp.run()
