#!/usr/bin/env python3
"""只读审计账号内所有 S3 桶的公开访问配置，输出 TSV。"""
import json

import boto3
from botocore.exceptions import ClientError

PUBLIC_GROUPS = ("/global/AllUsers", "/global/AuthenticatedUsers")


def safe(call, default=None, **kw):
    try:
        return call(**kw)
    except ClientError as err:
        return default if default is not None else {"_error": err.response["Error"]["Code"]}


def main():
    s3 = boto3.client("s3")
    account = boto3.client("sts").get_caller_identity()["Account"]
    print("bucket\tregion\tbpa_all\tpolicy_public\texternal_accounts\tacl_public\tencryption\trisk")
    for b in s3.list_buckets()["Buckets"]:
        name = b["Name"]
        region = (safe(s3.get_bucket_location, Bucket=name).get("LocationConstraint") or "us-east-1")
        bpa = safe(s3.get_public_access_block, Bucket=name).get("PublicAccessBlockConfiguration", {})
        bpa_all = bool(bpa) and all(bpa.values())
        status = safe(s3.get_bucket_policy_status, Bucket=name).get("PolicyStatus", {})
        policy_public = status.get("IsPublic", False)

        external = set()
        policy = safe(s3.get_bucket_policy, Bucket=name).get("Policy")
        if policy:
            for st in json.loads(policy).get("Statement", []):
                principals = st.get("Principal", {})
                aws = principals.get("AWS", []) if isinstance(principals, dict) else [principals]
                for p in [aws] if isinstance(aws, str) else aws:
                    if p != "*" and account not in p:
                        external.add(p.split(":")[4] if p.startswith("arn:") else p)

        grants = safe(s3.get_bucket_acl, Bucket=name).get("Grants", [])
        acl_public = any(g.get("Grantee", {}).get("URI", "").endswith(PUBLIC_GROUPS) for g in grants)
        enc = safe(s3.get_bucket_encryption, Bucket=name)
        rules = enc.get("ServerSideEncryptionConfiguration", {}).get("Rules", [])
        encryption = rules[0]["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] if rules else "none"

        risk = "high" if (policy_public or acl_public) else "medium" if (external or not bpa_all) else "low"
        print("\t".join([name, region, str(bpa_all), str(policy_public), ",".join(sorted(external)) or "-",
                         str(acl_public), encryption, risk]))


if __name__ == "__main__":
    main()
