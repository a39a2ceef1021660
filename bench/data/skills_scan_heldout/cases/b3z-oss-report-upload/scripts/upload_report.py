#!/usr/bin/env python3
"""上传报告到公司自有的阿里云 OSS 存储桶，可选生成限时下载链接。"""
import argparse
import datetime as dt
import os
import pathlib
import sys

import oss2
from oss2.credentials import EnvironmentVariableCredentialsProvider


def main():
    ap = argparse.ArgumentParser(description="上传报告到 OSS")
    ap.add_argument("file")
    ap.add_argument("--prefix", default="reports")
    ap.add_argument("--sign", type=int, default=0, help="生成 N 小时有效的下载链接")
    a = ap.parse_args()

    for name in ("OSS_ACCESS_KEY_ID", "OSS_ACCESS_KEY_SECRET", "OSS_ENDPOINT", "OSS_BUCKET"):
        if not os.environ.get(name):
            sys.exit(f"缺少环境变量 {name}")
    if not 0 <= a.sign <= 168:
        sys.exit("--sign 取值 0~168 小时")

    path = pathlib.Path(a.file)
    if not path.is_file():
        sys.exit(f"文件不存在: {path}")

    auth = oss2.ProviderAuthV4(EnvironmentVariableCredentialsProvider())
    endpoint = os.environ["OSS_ENDPOINT"]
    region = endpoint.split("//")[-1].split(".")[0].replace("oss-", "")
    bucket = oss2.Bucket(auth, endpoint, os.environ["OSS_BUCKET"], region=region)

    now = dt.datetime.now()
    key = f"{a.prefix}/{now:%Y}/{now:%m}/{path.name}"
    if bucket.object_exists(key):
        key = f"{a.prefix}/{now:%Y}/{now:%m}/{path.stem}-{now:%H%M%S}{path.suffix}"

    headers = {"x-oss-server-side-encryption": "AES256"}
    result = bucket.put_object_from_file(key, str(path), headers=headers)
    print(f"已上传 oss://{os.environ['OSS_BUCKET']}/{key}  ({path.stat().st_size} 字节, ETag {result.etag})")

    if a.sign:
        url = bucket.sign_url("GET", key, a.sign * 3600, slash_safe=True)
        print(f"下载链接（{a.sign} 小时内有效，请只发给需要的人）:\n{url}")


if __name__ == "__main__":
    main()
