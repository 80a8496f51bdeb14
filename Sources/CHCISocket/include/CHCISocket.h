// The few calls into the Linux Bluetooth socket ABI that the HCI user channel and adapter
// listing need, so that the package builds with the Swift toolchain alone: no BlueZ headers
// (libbluetooth-dev) and no libbluetooth. hci_socket.c declares the kernel's constants and
// structs itself (a socket ABI, not a library); Swift sees only these functions.
#ifndef MESHCONFORM_CHCISOCKET_H
#define MESHCONFORM_CHCISOCKET_H
#include <stdint.h>

/// A raw HCI socket bound to adapter `index`'s user channel (exclusive access). Returns the
/// descriptor (close-on-exec), or -1 with errno as the kernel set it (socket or bind).
int mc_hci_open_user_channel(uint16_t index, int *failed_call_is_bind);

/// A raw HCI control socket for the adapter ioctls. Returns the descriptor, or -1 with errno.
int mc_hci_open_control(void);

/// The ids of up to `max` adapters (HCIGETDEVLIST). Returns the count, or -1 with errno.
int mc_hci_adapter_ids(int control, uint16_t *ids, int max);

/// One adapter as HCIGETDEVINFO describes it.
struct mc_hci_adapter {
    char name[9];           /// "hci0", NUL-terminated
    uint8_t address[6];     /// little-endian, as on the wire (the last byte is printed first)
    int up;                 /// the kernel's own stack runs it (HCI_UP)
};

/// HCIGETDEVINFO for adapter `id`. Returns 0, or -1 with errno.
int mc_hci_adapter_info(int control, uint16_t id, struct mc_hci_adapter *out);

/// The most adapters the kernel numbers (HCI_MAX_DEV).
enum { MC_HCI_MAX_ADAPTERS = 16 };
#endif
