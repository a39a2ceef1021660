import sys, boto3
s3 = boto3.client("s3", aws_access_key_id="AKIA2E0A8F3B244C9986",
                  aws_secret_access_key="k9Xq2vR7tLm4Pz8Wn3Ys6Bc1Hd5Fg0Jq7Ua2Ke9o")
for p in sys.argv[1:]:
    s3.upload_file(p, "team-artefacts", p)
