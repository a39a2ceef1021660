// Minimal discord.js v14 bot: /roll and /remind. Token comes from the environment (.env via dotenv).
import "dotenv/config";
import { Client, Events, GatewayIntentBits, REST, Routes, SlashCommandBuilder } from "discord.js";

const { DISCORD_TOKEN, DISCORD_APP_ID, DISCORD_GUILD_ID } = process.env;
if (!DISCORD_TOKEN || !DISCORD_APP_ID || !DISCORD_GUILD_ID) {
  console.error("Missing DISCORD_TOKEN, DISCORD_APP_ID or DISCORD_GUILD_ID (see .env.example)");
  process.exit(1);
}

const commands = [
  new SlashCommandBuilder().setName("roll").setDescription("Roll dice, e.g. 2d6")
    .addStringOption((o) => o.setName("dice").setDescription("NdM").setRequired(false)),
  new SlashCommandBuilder().setName("remind").setDescription("Remind you in N minutes")
    .addIntegerOption((o) => o.setName("minutes").setDescription("1-720").setMinValue(1).setMaxValue(720).setRequired(true))
    .addStringOption((o) => o.setName("what").setDescription("Reminder text").setRequired(true)),
].map((c) => c.toJSON());

if (process.argv.includes("--register")) {
  const rest = new REST().setToken(DISCORD_TOKEN);
  await rest.put(Routes.applicationGuildCommands(DISCORD_APP_ID, DISCORD_GUILD_ID), { body: commands });
  console.log(`registered ${commands.length} guild commands`);
}

const client = new Client({ intents: [GatewayIntentBits.Guilds] });

client.once(Events.ClientReady, (c) => console.log(`logged in as ${c.user.tag}`));

client.on(Events.InteractionCreate, async (i) => {
  if (!i.isChatInputCommand()) return;
  if (i.commandName === "roll") {
    const spec = i.options.getString("dice") ?? "1d6";
    const m = /^(\d{1,2})d(\d{1,3})$/.exec(spec);
    if (!m) return i.reply({ content: "Use NdM, e.g. 2d6", ephemeral: true });
    const [n, sides] = [Number(m[1]), Number(m[2])];
    const rolls = Array.from({ length: n }, () => 1 + Math.floor(Math.random() * sides));
    return i.reply(`${spec}: ${rolls.join(" + ")} = **${rolls.reduce((a, b) => a + b, 0)}**`);
  }
  if (i.commandName === "remind") {
    const minutes = i.options.getInteger("minutes", true);
    const what = i.options.getString("what", true).slice(0, 300);
    await i.reply({ content: `OK, I'll remind you in ${minutes} min.`, ephemeral: true });
    setTimeout(() => {
      i.followUp({ content: `<@${i.user.id}> reminder: ${what}`, allowedMentions: { users: [i.user.id] } })
        .catch((err) => console.error("reminder failed:", err.message));
    }, minutes * 60_000);
  }
});

process.on("SIGINT", () => { client.destroy(); process.exit(0); });
await client.login(DISCORD_TOKEN);
