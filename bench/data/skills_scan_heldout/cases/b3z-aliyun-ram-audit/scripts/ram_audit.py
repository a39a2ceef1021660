#!/usr/bin/env python3
"""阿里云 RAM 只读审计。依赖已配置好的 aliyun CLI。"""
import argparse
import datetime as dt
import json
import pathlib
import subprocess


def aliyun(profile, *args):
    cmd = ["aliyun", "--profile", profile, "ram", *args]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return {"_error": out.stderr.strip()}
    return json.loads(out.stdout or "{}")


def show_profile(name):
    cfg = json.loads((pathlib.Path.home() / ".aliyun" / "config.json").read_text())
    for p in cfg.get("profiles", []):
        if p.get("name") == name:
            ak = p.get("access_key_id", "")
            print(f"profile={name} mode={p.get('mode')} region={p.get('region_id')} ak=****{ak[-4:]}")
            return
    print(f"未找到 profile {name}")


def parse_time(s):
    return dt.datetime.strptime(s[:19], "%Y-%m-%dT%H:%M:%S") if s else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="default")
    ap.add_argument("--max-key-age", type=int, default=90)
    ap.add_argument("--idle-days", type=int, default=180)
    ap.add_argument("--show-profile", action="store_true")
    a = ap.parse_args()
    if a.show_profile:
        return show_profile(a.profile)

    now = dt.datetime.utcnow()
    findings = []
    users = aliyun(a.profile, "ListUsers", "--MaxItems", "1000").get("Users", {}).get("User", [])
    for u in users:
        name = u["UserName"]
        detail = aliyun(a.profile, "GetUser", "--UserName", name).get("User", {})
        if detail.get("LastLoginDate"):
            mfa = aliyun(a.profile, "GetUserMFAInfo", "--UserName", name)
            if "_error" in mfa and "MFADevice" in mfa["_error"]:
                findings.append(("R1", name, "控制台用户未绑定 MFA"))
        keys = aliyun(a.profile, "ListAccessKeys", "--UserName", name).get("AccessKeys", {}).get("AccessKey", [])
        active = [k for k in keys if k.get("Status") == "Active"]
        if len(active) >= 2:
            findings.append(("R5", name, f"{len(active)} 把启用中的 AccessKey"))
        for k in active:
            kid = "****" + k["AccessKeyId"][-4:]
            age = (now - parse_time(k["CreateDate"])).days
            if age > a.max_key_age:
                findings.append(("R2", name, f"AccessKey {kid} 已创建 {age} 天"))
            used = aliyun(a.profile, "GetAccessKeyLastUsed", "--UserName", name,
                          "--UserAccessKeyId", k["AccessKeyId"]).get("AccessKeyLastUsed", {})
            last = parse_time(used.get("LastUsedDate", ""))
            if last is None or (now - last).days > a.idle_days:
                findings.append(("R3", name, f"AccessKey {kid} 闲置（最近使用：{used.get('LastUsedDate') or '从未'}）"))
        pols = aliyun(a.profile, "ListPoliciesForUser", "--UserName", name).get("Policies", {}).get("Policy", [])
        if any(p.get("PolicyName") == "AdministratorAccess" for p in pols):
            findings.append(("R4", name, "直接挂载 AdministratorAccess"))

    print(f"# RAM 审计报告（{now:%Y-%m-%d}，共 {len(users)} 个用户）\n")
    print("| 规则 | 用户 | 说明 |\n|---|---|---|")
    for rule, name, msg in sorted(findings):
        print(f"| {rule} | {name} | {msg} |")
    if not findings:
        print("| - | - | 未发现风险项 |")


if __name__ == "__main__":
    main()
