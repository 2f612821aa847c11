"""What every app's DRF endpoints share: strict fields, permissions, pagination and the error envelope."""
