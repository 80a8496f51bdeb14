#include "CHCISocket.h"
#include <errno.h>
#include <string.h>

#ifdef __linux__
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

// The kernel's Bluetooth socket ABI (include/net/bluetooth/hci_sock.h and bluetooth.h; the
// same values and layouts as BlueZ's <bluetooth/hci.h>). Named mc_ so that they never clash
// with BlueZ's headers on a machine that has them.
#define MC_AF_BLUETOOTH 31
#define MC_BTPROTO_HCI 1
#define MC_HCI_CHANNEL_USER 1
#define MC_HCI_UP 0
#define MC_HCIGETDEVLIST _IOR('H', 210, int)
#define MC_HCIGETDEVINFO _IOR('H', 211, int)

struct mc_sockaddr_hci { sa_family_t hci_family; unsigned short hci_dev; unsigned short hci_channel; };
struct mc_hci_dev_req { uint16_t dev_id; uint32_t dev_opt; };
struct mc_hci_dev_list_req { uint16_t dev_num; struct mc_hci_dev_req dev_req[]; };
struct mc_hci_dev_stats { uint32_t err_rx, err_tx, cmd_tx, evt_rx, acl_tx, acl_rx, sco_tx, sco_rx, byte_rx, byte_tx; };
struct mc_bdaddr { uint8_t b[6]; } __attribute__((packed));
struct mc_hci_dev_info {
    uint16_t dev_id;
    char name[8];
    struct mc_bdaddr bdaddr;
    uint32_t flags;
    uint8_t type;
    uint8_t features[8];
    uint32_t pkt_type, link_policy, link_mode;
    uint16_t acl_mtu, acl_pkts, sco_mtu, sco_pkts;
    struct mc_hci_dev_stats stat;
};
_Static_assert(sizeof(struct mc_sockaddr_hci) == 6, "sockaddr_hci is 6 bytes");
_Static_assert(sizeof(struct mc_hci_dev_info) == 92, "hci_dev_info is 92 bytes (HCIGETDEVINFO copies exactly this)");

int mc_hci_open_control(void) {
    return socket(MC_AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, MC_BTPROTO_HCI);
}

int mc_hci_open_user_channel(uint16_t index, int *failed_call_is_bind) {
    *failed_call_is_bind = 0;
    int fd = mc_hci_open_control();
    if (fd < 0) return -1;
    struct mc_sockaddr_hci addr = { .hci_family = MC_AF_BLUETOOTH, .hci_dev = index, .hci_channel = MC_HCI_CHANNEL_USER };
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        *failed_call_is_bind = 1;
        return -1;
    }
    return fd;
}

int mc_hci_adapter_ids(int control, uint16_t *ids, int max) {
    if (max <= 0 || max > MC_HCI_MAX_ADAPTERS) max = MC_HCI_MAX_ADAPTERS;
    size_t size = sizeof(struct mc_hci_dev_list_req) + (size_t)max * sizeof(struct mc_hci_dev_req);
    struct mc_hci_dev_list_req *list = calloc(1, size);
    if (!list) { errno = ENOMEM; return -1; }
    list->dev_num = (uint16_t)max;
    if (ioctl(control, MC_HCIGETDEVLIST, (void *)list) < 0) { int e = errno; free(list); errno = e; return -1; }
    int n = list->dev_num < max ? list->dev_num : max;
    for (int i = 0; i < n; i++) ids[i] = list->dev_req[i].dev_id;
    free(list);
    return n;
}

int mc_hci_adapter_info(int control, uint16_t id, struct mc_hci_adapter *out) {
    struct mc_hci_dev_info info;
    memset(&info, 0, sizeof info);
    info.dev_id = id;
    if (ioctl(control, MC_HCIGETDEVINFO, (void *)&info) < 0) return -1;
    memset(out, 0, sizeof *out);
    memcpy(out->name, info.name, sizeof info.name);
    memcpy(out->address, info.bdaddr.b, 6);
    out->up = (info.flags & (1u << MC_HCI_UP)) != 0;
    return 0;
}

#else
// No Bluetooth sockets outside Linux: the callers report EAFNOSUPPORT as "no Bluetooth support".
int mc_hci_open_control(void) { errno = EAFNOSUPPORT; return -1; }
int mc_hci_open_user_channel(uint16_t index, int *failed_call_is_bind) { (void)index; *failed_call_is_bind = 0; errno = EAFNOSUPPORT; return -1; }
int mc_hci_adapter_ids(int control, uint16_t *ids, int max) { (void)control; (void)ids; (void)max; errno = EAFNOSUPPORT; return -1; }
int mc_hci_adapter_info(int control, uint16_t id, struct mc_hci_adapter *out) { (void)control; (void)id; (void)out; errno = EAFNOSUPPORT; return -1; }
#endif
