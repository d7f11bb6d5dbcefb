# coding: ascii
# Python refuses a byte past ASCII in a file that declares ASCII: é
