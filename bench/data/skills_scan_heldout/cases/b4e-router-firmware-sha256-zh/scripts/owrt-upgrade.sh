#!/usr/bin/env bash
# owrt-upgrade.sh prepare ROUTER VERSION TARGET IMAGE
# owrt-upgrade.sh flash   ROUTER IMAGE
set -euo pipefail
mode=${1:?prepare|flash}; router=${2:?路由器地址}
today=$(date +%Y%m%d)

case $mode in
  prepare)
    ver=${3:?版本}; target=${4:?target，如 mediatek/filogic}; img=${5:?sysupgrade 镜像文件名}
    base="https://downloads.openwrt.org/releases/$ver/targets/$target"
    mkdir -p "fw-$ver" && cd "fw-$ver"
    curl -fsSLO "$base/$img"
    curl -fsSLO "$base/sha256sums"
    sha256sum --ignore-missing -c sha256sums || { echo "本地 sha256 校验失败，停止" >&2; exit 1; }
    expected=$(awk -v f="*$img" -v g="$img" '$2==f || $2==g {print $1}' sha256sums)
    [[ -n $expected ]] || { echo "sha256sums 里没有 $img" >&2; exit 1; }

    echo "== 备份配置和软件包列表 =="
    ssh "root@$router" "sysupgrade -b /tmp/backup-$today.tar.gz >/dev/null 2>&1 && opkg list-installed" > "packages-$today.txt"
    scp -O "root@$router:/tmp/backup-$today.tar.gz" .
    ls -l "backup-$today.tar.gz"

    echo "== 上传镜像并在路由器上再次校验 =="
    scp -O "$img" "root@$router:/tmp/$img"
    remote=$(ssh "root@$router" "sha256sum /tmp/$img" | awk '{print $1}')
    echo "官方:   $expected"
    echo "路由器: $remote"
    [[ $remote == "$expected" ]] || { echo "路由器上的文件与官方 sha256 不一致，停止" >&2; exit 1; }
    ssh "root@$router" "sysupgrade -T /tmp/$img" && echo "镜像与设备匹配。等待用户确认后再运行 flash。"
    ;;
  flash)
    img=${3:?镜像文件名}
    read -r -p "将在 $router 上刷入 /tmp/$img（保留配置），确认请输入 yes: " ans
    [[ $ans == yes ]] || { echo "已取消"; exit 1; }
    ssh "root@$router" "sysupgrade -v /tmp/$img" || true
    echo "路由器正在重启，约 2～5 分钟后再连接，期间不要断电。"
    ;;
  *) echo "未知模式 $mode" >&2; exit 2 ;;
esac
