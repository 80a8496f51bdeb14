#!/usr/bin/env python3
"""A GATT peripheral on Bumble's own host that serves a mesh dialect's service but does not
advertise its UUID (only a name), as a phone app in the background does: the tester can only
tell its dialect from its GATT database. For ci/bumble-detect.sh.

  bumble-quiet-peripheral.py --controller tcp:HOST:PORT --address C0:.. --service UUID --characteristic UUID
Prints READY once advertising; runs until killed.
"""
import argparse
import asyncio

from bumble.core import AdvertisingData
from bumble.device import Device
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.hci import Address
from bumble.transport import open_transport


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--controller", required=True)
    parser.add_argument("--address", required=True)
    parser.add_argument("--service", required=True)
    parser.add_argument("--characteristic", required=True)
    args = parser.parse_args()
    transport = await open_transport("tcp-client:" + args.controller.removeprefix("tcp:"))
    device = Device.with_hci("quiet", Address(args.address), transport.source, transport.sink)
    packet = Characteristic(args.characteristic,
                            Characteristic.Properties.WRITE_WITHOUT_RESPONSE | Characteristic.Properties.NOTIFY,
                            Characteristic.Permissions.WRITEABLE, CharacteristicValue(write=lambda _c, _v: None))
    device.add_service(Service(args.service, [packet]))
    await device.power_on()
    name = AdvertisingData([(AdvertisingData.COMPLETE_LOCAL_NAME, b"quiet")])
    await device.start_advertising(advertising_data=bytes(name), auto_restart=True, advertising_interval_min=20, advertising_interval_max=20)
    print("READY", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
