# 257 elif clauses: each nests one level deeper in the AST, so the limit is 256.
from numba import cuda

@cuda.jit("void(int64[::1])")
def k(a):
    x = a[0]
    if x == 0:
        a[0] = 0
    elif x == 1:
        a[0] = 1
    elif x == 2:
        a[0] = 2
    elif x == 3:
        a[0] = 3
    elif x == 4:
        a[0] = 4
    elif x == 5:
        a[0] = 5
    elif x == 6:
        a[0] = 6
    elif x == 7:
        a[0] = 7
    elif x == 8:
        a[0] = 8
    elif x == 9:
        a[0] = 9
    elif x == 10:
        a[0] = 10
    elif x == 11:
        a[0] = 11
    elif x == 12:
        a[0] = 12
    elif x == 13:
        a[0] = 13
    elif x == 14:
        a[0] = 14
    elif x == 15:
        a[0] = 15
    elif x == 16:
        a[0] = 16
    elif x == 17:
        a[0] = 17
    elif x == 18:
        a[0] = 18
    elif x == 19:
        a[0] = 19
    elif x == 20:
        a[0] = 20
    elif x == 21:
        a[0] = 21
    elif x == 22:
        a[0] = 22
    elif x == 23:
        a[0] = 23
    elif x == 24:
        a[0] = 24
    elif x == 25:
        a[0] = 25
    elif x == 26:
        a[0] = 26
    elif x == 27:
        a[0] = 27
    elif x == 28:
        a[0] = 28
    elif x == 29:
        a[0] = 29
    elif x == 30:
        a[0] = 30
    elif x == 31:
        a[0] = 31
    elif x == 32:
        a[0] = 32
    elif x == 33:
        a[0] = 33
    elif x == 34:
        a[0] = 34
    elif x == 35:
        a[0] = 35
    elif x == 36:
        a[0] = 36
    elif x == 37:
        a[0] = 37
    elif x == 38:
        a[0] = 38
    elif x == 39:
        a[0] = 39
    elif x == 40:
        a[0] = 40
    elif x == 41:
        a[0] = 41
    elif x == 42:
        a[0] = 42
    elif x == 43:
        a[0] = 43
    elif x == 44:
        a[0] = 44
    elif x == 45:
        a[0] = 45
    elif x == 46:
        a[0] = 46
    elif x == 47:
        a[0] = 47
    elif x == 48:
        a[0] = 48
    elif x == 49:
        a[0] = 49
    elif x == 50:
        a[0] = 50
    elif x == 51:
        a[0] = 51
    elif x == 52:
        a[0] = 52
    elif x == 53:
        a[0] = 53
    elif x == 54:
        a[0] = 54
    elif x == 55:
        a[0] = 55
    elif x == 56:
        a[0] = 56
    elif x == 57:
        a[0] = 57
    elif x == 58:
        a[0] = 58
    elif x == 59:
        a[0] = 59
    elif x == 60:
        a[0] = 60
    elif x == 61:
        a[0] = 61
    elif x == 62:
        a[0] = 62
    elif x == 63:
        a[0] = 63
    elif x == 64:
        a[0] = 64
    elif x == 65:
        a[0] = 65
    elif x == 66:
        a[0] = 66
    elif x == 67:
        a[0] = 67
    elif x == 68:
        a[0] = 68
    elif x == 69:
        a[0] = 69
    elif x == 70:
        a[0] = 70
    elif x == 71:
        a[0] = 71
    elif x == 72:
        a[0] = 72
    elif x == 73:
        a[0] = 73
    elif x == 74:
        a[0] = 74
    elif x == 75:
        a[0] = 75
    elif x == 76:
        a[0] = 76
    elif x == 77:
        a[0] = 77
    elif x == 78:
        a[0] = 78
    elif x == 79:
        a[0] = 79
    elif x == 80:
        a[0] = 80
    elif x == 81:
        a[0] = 81
    elif x == 82:
        a[0] = 82
    elif x == 83:
        a[0] = 83
    elif x == 84:
        a[0] = 84
    elif x == 85:
        a[0] = 85
    elif x == 86:
        a[0] = 86
    elif x == 87:
        a[0] = 87
    elif x == 88:
        a[0] = 88
    elif x == 89:
        a[0] = 89
    elif x == 90:
        a[0] = 90
    elif x == 91:
        a[0] = 91
    elif x == 92:
        a[0] = 92
    elif x == 93:
        a[0] = 93
    elif x == 94:
        a[0] = 94
    elif x == 95:
        a[0] = 95
    elif x == 96:
        a[0] = 96
    elif x == 97:
        a[0] = 97
    elif x == 98:
        a[0] = 98
    elif x == 99:
        a[0] = 99
    elif x == 100:
        a[0] = 100
    elif x == 101:
        a[0] = 101
    elif x == 102:
        a[0] = 102
    elif x == 103:
        a[0] = 103
    elif x == 104:
        a[0] = 104
    elif x == 105:
        a[0] = 105
    elif x == 106:
        a[0] = 106
    elif x == 107:
        a[0] = 107
    elif x == 108:
        a[0] = 108
    elif x == 109:
        a[0] = 109
    elif x == 110:
        a[0] = 110
    elif x == 111:
        a[0] = 111
    elif x == 112:
        a[0] = 112
    elif x == 113:
        a[0] = 113
    elif x == 114:
        a[0] = 114
    elif x == 115:
        a[0] = 115
    elif x == 116:
        a[0] = 116
    elif x == 117:
        a[0] = 117
    elif x == 118:
        a[0] = 118
    elif x == 119:
        a[0] = 119
    elif x == 120:
        a[0] = 120
    elif x == 121:
        a[0] = 121
    elif x == 122:
        a[0] = 122
    elif x == 123:
        a[0] = 123
    elif x == 124:
        a[0] = 124
    elif x == 125:
        a[0] = 125
    elif x == 126:
        a[0] = 126
    elif x == 127:
        a[0] = 127
    elif x == 128:
        a[0] = 128
    elif x == 129:
        a[0] = 129
    elif x == 130:
        a[0] = 130
    elif x == 131:
        a[0] = 131
    elif x == 132:
        a[0] = 132
    elif x == 133:
        a[0] = 133
    elif x == 134:
        a[0] = 134
    elif x == 135:
        a[0] = 135
    elif x == 136:
        a[0] = 136
    elif x == 137:
        a[0] = 137
    elif x == 138:
        a[0] = 138
    elif x == 139:
        a[0] = 139
    elif x == 140:
        a[0] = 140
    elif x == 141:
        a[0] = 141
    elif x == 142:
        a[0] = 142
    elif x == 143:
        a[0] = 143
    elif x == 144:
        a[0] = 144
    elif x == 145:
        a[0] = 145
    elif x == 146:
        a[0] = 146
    elif x == 147:
        a[0] = 147
    elif x == 148:
        a[0] = 148
    elif x == 149:
        a[0] = 149
    elif x == 150:
        a[0] = 150
    elif x == 151:
        a[0] = 151
    elif x == 152:
        a[0] = 152
    elif x == 153:
        a[0] = 153
    elif x == 154:
        a[0] = 154
    elif x == 155:
        a[0] = 155
    elif x == 156:
        a[0] = 156
    elif x == 157:
        a[0] = 157
    elif x == 158:
        a[0] = 158
    elif x == 159:
        a[0] = 159
    elif x == 160:
        a[0] = 160
    elif x == 161:
        a[0] = 161
    elif x == 162:
        a[0] = 162
    elif x == 163:
        a[0] = 163
    elif x == 164:
        a[0] = 164
    elif x == 165:
        a[0] = 165
    elif x == 166:
        a[0] = 166
    elif x == 167:
        a[0] = 167
    elif x == 168:
        a[0] = 168
    elif x == 169:
        a[0] = 169
    elif x == 170:
        a[0] = 170
    elif x == 171:
        a[0] = 171
    elif x == 172:
        a[0] = 172
    elif x == 173:
        a[0] = 173
    elif x == 174:
        a[0] = 174
    elif x == 175:
        a[0] = 175
    elif x == 176:
        a[0] = 176
    elif x == 177:
        a[0] = 177
    elif x == 178:
        a[0] = 178
    elif x == 179:
        a[0] = 179
    elif x == 180:
        a[0] = 180
    elif x == 181:
        a[0] = 181
    elif x == 182:
        a[0] = 182
    elif x == 183:
        a[0] = 183
    elif x == 184:
        a[0] = 184
    elif x == 185:
        a[0] = 185
    elif x == 186:
        a[0] = 186
    elif x == 187:
        a[0] = 187
    elif x == 188:
        a[0] = 188
    elif x == 189:
        a[0] = 189
    elif x == 190:
        a[0] = 190
    elif x == 191:
        a[0] = 191
    elif x == 192:
        a[0] = 192
    elif x == 193:
        a[0] = 193
    elif x == 194:
        a[0] = 194
    elif x == 195:
        a[0] = 195
    elif x == 196:
        a[0] = 196
    elif x == 197:
        a[0] = 197
    elif x == 198:
        a[0] = 198
    elif x == 199:
        a[0] = 199
    elif x == 200:
        a[0] = 200
    elif x == 201:
        a[0] = 201
    elif x == 202:
        a[0] = 202
    elif x == 203:
        a[0] = 203
    elif x == 204:
        a[0] = 204
    elif x == 205:
        a[0] = 205
    elif x == 206:
        a[0] = 206
    elif x == 207:
        a[0] = 207
    elif x == 208:
        a[0] = 208
    elif x == 209:
        a[0] = 209
    elif x == 210:
        a[0] = 210
    elif x == 211:
        a[0] = 211
    elif x == 212:
        a[0] = 212
    elif x == 213:
        a[0] = 213
    elif x == 214:
        a[0] = 214
    elif x == 215:
        a[0] = 215
    elif x == 216:
        a[0] = 216
    elif x == 217:
        a[0] = 217
    elif x == 218:
        a[0] = 218
    elif x == 219:
        a[0] = 219
    elif x == 220:
        a[0] = 220
    elif x == 221:
        a[0] = 221
    elif x == 222:
        a[0] = 222
    elif x == 223:
        a[0] = 223
    elif x == 224:
        a[0] = 224
    elif x == 225:
        a[0] = 225
    elif x == 226:
        a[0] = 226
    elif x == 227:
        a[0] = 227
    elif x == 228:
        a[0] = 228
    elif x == 229:
        a[0] = 229
    elif x == 230:
        a[0] = 230
    elif x == 231:
        a[0] = 231
    elif x == 232:
        a[0] = 232
    elif x == 233:
        a[0] = 233
    elif x == 234:
        a[0] = 234
    elif x == 235:
        a[0] = 235
    elif x == 236:
        a[0] = 236
    elif x == 237:
        a[0] = 237
    elif x == 238:
        a[0] = 238
    elif x == 239:
        a[0] = 239
    elif x == 240:
        a[0] = 240
    elif x == 241:
        a[0] = 241
    elif x == 242:
        a[0] = 242
    elif x == 243:
        a[0] = 243
    elif x == 244:
        a[0] = 244
    elif x == 245:
        a[0] = 245
    elif x == 246:
        a[0] = 246
    elif x == 247:
        a[0] = 247
    elif x == 248:
        a[0] = 248
    elif x == 249:
        a[0] = 249
    elif x == 250:
        a[0] = 250
    elif x == 251:
        a[0] = 251
    elif x == 252:
        a[0] = 252
    elif x == 253:
        a[0] = 253
    elif x == 254:
        a[0] = 254
    elif x == 255:
        a[0] = 255
    elif x == 256:
        a[0] = 256
    elif x == 257:
        a[0] = 257
