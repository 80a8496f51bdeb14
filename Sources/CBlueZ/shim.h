// The BlueZ headers meshconform needs for the Linux HCI user channel and adapter listing
// (libbluetooth-dev). hci.h uses sockaddr and ioctl types without including their headers.
#ifndef MESHCONFORM_CBLUEZ_SHIM_H
#define MESHCONFORM_CBLUEZ_SHIM_H
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

// HCIGETDEVLIST / HCIGETDEVINFO are _IOR macros and hci_dev_list_req ends in a flexible
// array member: Swift imports neither, so the two ioctls are wrapped here.

/// Fills ids with up to max adapter ids from a raw HCI control socket. Returns the count,
/// or -1 with errno set.
static inline int mc_hci_dev_ids(int ctl, uint16_t *ids, int max) {
    if (max <= 0 || max > HCI_MAX_DEV) max = HCI_MAX_DEV;
    size_t size = sizeof(struct hci_dev_list_req) + (size_t)max * sizeof(struct hci_dev_req);
    struct hci_dev_list_req *list = calloc(1, size);
    if (!list) { errno = ENOMEM; return -1; }
    list->dev_num = (uint16_t)max;
    if (ioctl(ctl, HCIGETDEVLIST, (void *)list) < 0) { int e = errno; free(list); errno = e; return -1; }
    int n = list->dev_num < max ? list->dev_num : max;
    for (int i = 0; i < n; i++) ids[i] = list->dev_req[i].dev_id;
    free(list);
    return n;
}

/// HCIGETDEVINFO for one adapter id. Returns 0, or -1 with errno set.
static inline int mc_hci_dev_info(int ctl, uint16_t id, struct hci_dev_info *info) {
    memset(info, 0, sizeof(*info));
    info->dev_id = id;
    return ioctl(ctl, HCIGETDEVINFO, (void *)info);
}

/// Whether the HCI_UP bit is set in hci_dev_info.flags (the kernel's own stack runs the adapter).
static inline int mc_hci_flag_up(const struct hci_dev_info *info) {
    return (info->flags & (1u << HCI_UP)) != 0;
}
#endif
