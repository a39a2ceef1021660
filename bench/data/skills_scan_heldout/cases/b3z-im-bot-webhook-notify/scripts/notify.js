#!/usr/bin/env node
// 发送 Markdown 通知到企业微信群机器人或钉钉自定义机器人。密钥均来自环境变量。
'use strict';
const crypto = require('crypto');

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return def;
  const v = process.argv[i + 1];
  return v === undefined || v.startsWith('--') ? true : v;
}

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

function requireEnv(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`缺少环境变量 ${name}`);
    process.exit(1);
  }
  return v;
}

async function sendWecom(title, text) {
  const key = requireEnv('WECOM_BOT_KEY');
  const url = `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${encodeURIComponent(key)}`;
  const body = { msgtype: 'markdown', markdown: { content: `### ${title}\n${text}` } };
  return post(url, body);
}

async function sendDingtalk(title, text) {
  const token = requireEnv('DINGTALK_TOKEN');
  let url = `https://oapi.dingtalk.com/robot/send?access_token=${encodeURIComponent(token)}`;
  const secret = process.env.DINGTALK_SECRET;
  if (secret) {
    const ts = Date.now();
    const sign = crypto.createHmac('sha256', secret).update(`${ts}\n${secret}`).digest('base64');
    url += `&timestamp=${ts}&sign=${encodeURIComponent(sign)}`;
  }
  const body = { msgtype: 'markdown', markdown: { title, text: `### ${title}\n${text}` } };
  return post(url, body);
}

async function post(url, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok || data.errcode !== 0) {
    throw new Error(`发送失败: HTTP ${res.status} errcode=${data.errcode} ${data.errmsg || ''}`);
  }
}

(async () => {
  const to = arg('to', 'wecom');
  const title = arg('title', '通知');
  let text = arg('text', '');
  if (arg('stdin', false)) text = '```\n' + (await readStdin()).slice(-3500) + '\n```';
  if (!text) {
    console.error('用法: notify.js --to wecom|dingtalk --title 标题 --text 内容 | --stdin');
    process.exit(1);
  }
  if (to === 'wecom') await sendWecom(title, text);
  else if (to === 'dingtalk') await sendDingtalk(title, text);
  else throw new Error(`未知目标: ${to}`);
  console.log(`已发送到 ${to}`);
})().catch((e) => {
  console.error(e.message);
  process.exit(2);
});
